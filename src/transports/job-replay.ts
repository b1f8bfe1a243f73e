import type { JobEvents, JobProgress } from '../jobs/queue.js';

/**
 * What jobs started through the REST gateway have reported so far, so a client that follows one
 * at `GET /api/jobs/{id}/events` after the call answered "accepted" (`Prefer: respond-async`)
 * still sees every phase from the first, not only those after it connected. Recording starts
 * when the job is enqueued, before it can report; per front end, bounded in jobs and in events.
 */
export type ReplayFrame = { event: 'progress'; progress: JobProgress } | { event: 'completed'; result: unknown } | { event: 'failed'; error: string };

/** Jobs remembered (the oldest recording is dropped past it) and frames kept per job. */
const MAX_JOBS = 100;
const MAX_FRAMES = 1_000;

interface Recording {
  frames: ReplayFrame[];
  listeners: Set<(frame: ReplayFrame) => void>;
  stop(): void;
}

export class JobReplay {
  private readonly jobs = new Map<string, Recording>();

  constructor(private readonly events: JobEvents) {}

  /** Starts recording a job's events (once per id). */
  record(jobId: string): void {
    if (this.jobs.has(jobId)) return;
    const rec: Recording = { frames: [], listeners: new Set(), stop: () => {} };
    const push = (frame: ReplayFrame) => {
      const last = rec.frames.at(-1);
      if (last && last.event !== 'progress') return;
      if (frame.event === 'progress' && rec.frames.length >= MAX_FRAMES) rec.frames.splice(0, 1);
      rec.frames.push(frame);
      for (const l of rec.listeners) l(frame);
      if (frame.event !== 'progress') rec.stop();
    };
    const offs = [
      this.events.onProgress(jobId, (progress) => push({ event: 'progress', progress })),
      this.events.onCompleted(jobId, (result) => push({ event: 'completed', result })),
      this.events.onFailed(jobId, (err) => push({ event: 'failed', error: err.message })),
    ];
    rec.stop = () => offs.splice(0).forEach((off) => off());
    this.jobs.set(jobId, rec);
    while (this.jobs.size > MAX_JOBS) {
      const [oldest, old] = this.jobs.entries().next().value!;
      old.stop();
      this.jobs.delete(oldest);
    }
  }

  /**
   * The frames recorded so far and a subscription to the next ones, or null when this front end
   * did not record the job (the caller then follows the queue's live events only).
   */
  follow(jobId: string, listener: (frame: ReplayFrame) => void): { past: ReplayFrame[]; off: () => void } | null {
    const rec = this.jobs.get(jobId);
    if (!rec) return null;
    rec.listeners.add(listener);
    return { past: [...rec.frames], off: () => rec.listeners.delete(listener) };
  }

  close(): void {
    for (const rec of this.jobs.values()) rec.stop();
    this.jobs.clear();
  }
}
