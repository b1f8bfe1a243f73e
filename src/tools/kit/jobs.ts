import type { JobProgress, JobRunner } from '../../services/index.js';

type Progress = (progress: number, total?: number, message?: string) => Promise<void>;

/**
 * A job's progress report as a progress notification: a number is the count done; a record
 * may name `done` (or `count`), `total` and `message` (or `phase`).
 */
export function progressOf(p: JobProgress): { progress: number; total?: number; message?: string } | null {
  if (typeof p === 'number') return { progress: p };
  const done = typeof p.done === 'number' ? p.done : typeof p.count === 'number' ? p.count : null;
  if (done === null) return null;
  const message = typeof p.message === 'string' ? p.message : typeof p.phase === 'string' ? p.phase : undefined;
  return { progress: done, ...(typeof p.total === 'number' ? { total: p.total } : {}), ...(message ? { message } : {}) };
}

/**
 * The runner a tool sees as `ctx.jobs`: every job it runs reports progress to the caller and
 * stops waiting (and the job, unless shared) when the call is cancelled, without the tool
 * wiring either. Each progress message names the job, which `GET /api/jobs/{id}/events` follows.
 */
export function callerJobs(runner: JobRunner, caller: { progress: Progress; signal: AbortSignal }): JobRunner {
  return {
    enqueue: (job, payload, options) => runner.enqueue(job, payload, options),
    run: (job, payload, options = {}) => {
      let jobId = '';
      return runner.run(job, payload, {
        signal: caller.signal,
        ...options,
        onEnqueued(id) {
          jobId = id;
          options.onEnqueued?.(id);
        },
        async progress(p) {
          await options.progress?.(p);
          const n = progressOf(p);
          if (n) await caller.progress(n.progress, n.total, `${n.message ? `${n.message} ` : ''}(job ${jobId})`);
        },
      });
    },
  };
}

/** Where a job's record is read, during and after it (knowledge://jobs/{id}). */
export function jobResourceUri(jobId: string): string {
  return `knowledge://jobs/${encodeURIComponent(jobId)}`;
}

/** A payload that answers "accepted" with a job id points at the job's record. */
export function acceptedJobLinks(payload: Record<string, unknown>): string[] {
  return payload.status === 'accepted' && typeof payload.job_id === 'string' && payload.job_id !== '' ? [jobResourceUri(payload.job_id)] : [];
}
