/**
 * Which runnable job of the in-process queue starts next: the oldest by enqueue order among the
 * types this process handles, with background jobs (EnqueueOptions.background) in a lane of their
 * own. A background job starts only when no other job is runnable or running, the others have
 * been quiet for `quietMs` (or it has been ready for `maxWaitMs`, so a steady stream cannot starve
 * it), and a slot would stay free for the next job a caller waits for.
 */
export interface Runnable {
  readonly type: string;
  /** Enqueue order, so jobs of different types still run first in, first out. */
  readonly seq: number;
  readonly background: boolean;
  /** When it last became runnable (epoch ms). */
  readyAt: number;
}

export class RunOrder<J extends Runnable> {
  /** Runnable jobs per type, each in enqueue order; background jobs apart. */
  private readonly foreground = new Map<string, J[]>();
  private readonly background = new Map<string, J[]>();
  /** When a job that is not background was last made runnable, started or finished (epoch ms). */
  private foregroundAt = 0;

  constructor(
    private readonly handles: (type: string) => boolean,
    private readonly opts: { quietMs: number; maxWaitMs: number },
  ) {}

  add(job: J, now = Date.now()): void {
    job.readyAt = now;
    if (!job.background) this.foregroundAt = now;
    const lane = job.background ? this.background : this.foreground;
    let list = lane.get(job.type);
    if (!list) lane.set(job.type, (list = []));
    // Retried jobs keep their seq, so they go back near the front rather than behind newer work.
    const at = list.findIndex((j) => j.seq > job.seq);
    if (at === -1) list.push(job);
    else list.splice(at, 0, job);
  }

  /** Takes a job out that will not run (cancelled while waiting); false when it was not runnable. */
  remove(job: J): boolean {
    const list = (job.background ? this.background : this.foreground).get(job.type);
    const at = list?.indexOf(job) ?? -1;
    if (at >= 0) list!.splice(at, 1);
    return at >= 0;
  }

  /** A job that is not background started or finished: the background lane waits for quiet again. */
  touched(now = Date.now()): void {
    this.foregroundAt = now;
  }

  /**
   * The job to start, or (`wakeInMs`) how long until a waiting background job may start; `slots`
   * are what the queue runs now. Nothing and no wake time: nothing runnable.
   */
  next(slots: { active: number; activeBackground: number; concurrency: number }, now = Date.now()): { job?: J; wakeInMs?: number } {
    const job = this.shift(this.foreground);
    if (job) return { job };
    if (slots.activeBackground >= Math.max(1, slots.concurrency - 1) || slots.active > slots.activeBackground) return {};
    const oldest = this.peek(this.background);
    if (!oldest) return {};
    const startAt = this.resumeAt(oldest.readyAt);
    return now >= startAt ? { job: this.shift(this.background)! } : { wakeInMs: startAt - now };
  }

  /**
   * When a background job that has been waiting since `since` may go on: once the others have
   * been quiet for `quietMs`, or `maxWaitMs` after `since`.
   */
  resumeAt(since: number): number {
    return Math.min(this.foregroundAt + this.opts.quietMs, since + this.opts.maxWaitMs);
  }

  /**
   * For a running background job between its batches: resolves once the others have been quiet
   * (or the wait bound from `since` passed) and `free()` says none of them runs; at once when
   * `stop()` (the queue is closing).
   */
  async untilQuiet(since: number, free: () => boolean, stop: () => boolean): Promise<void> {
    for (;;) {
      if (stop()) return;
      const now = Date.now();
      const at = this.resumeAt(since);
      if (now >= at && free()) return;
      await new Promise((r) => setTimeout(r, Math.max(5, at - now)));
    }
  }

  clear(): void {
    this.foreground.clear();
    this.background.clear();
  }

  private peek(lane: Map<string, J[]>): J | undefined {
    let best: J | undefined;
    for (const [type, list] of lane) {
      if (list.length === 0 || !this.handles(type)) continue;
      if (!best || list[0]!.seq < best.seq) best = list[0];
    }
    return best;
  }

  private shift(lane: Map<string, J[]>): J | undefined {
    const job = this.peek(lane);
    if (job) lane.get(job.type)!.shift();
    return job;
  }
}
