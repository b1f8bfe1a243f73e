import type { Logger } from '../log.js';
import { enqueueJob, type AnyJobDefinition, type JobPayload, type JobProgressOf, type JobResultOf } from './define.js';
import { JobTimeoutError, type EnqueueOptions, type JobEvents, type JobHandle, type JobQueue } from './queue.js';

/**
 * How long `run` waits for a result before answering "accepted": under the 60 s request
 * timeout common MCP clients use, with room for the answer to travel.
 */
export const DEFAULT_RUN_WAIT_MS = 20_000;

/**
 * The job was enqueued but did not finish within the wait; it goes on in the background. A
 * tool answers this as `jobAccepted` with the id, and the client follows the job up by id.
 */
export class JobAccepted {
  readonly status = 'accepted' as const;
  constructor(
    readonly jobId: string,
    readonly type: string,
  ) {}
}

export function isJobAccepted(value: unknown): value is JobAccepted {
  return value instanceof JobAccepted;
}

export interface RunOptions<Progress> extends EnqueueOptions {
  /**
   * Called with each progress report of the job, in order, one call at a time (an async
   * callback is awaited before the next report is passed on). A callback that throws is logged
   * and does not affect the job.
   */
  progress?: (progress: Progress) => void | Promise<void>;
  /**
   * Stops waiting: `run` rejects with the signal's reason, and the job is cancelled
   * (`JobQueue.cancel`) unless it was enqueued under a `jobId`, which other callers may share.
   */
  signal?: AbortSignal;
  /** Called with the job's id once it is enqueued, before any of its progress. */
  onEnqueued?: (jobId: string) => void;
  /** Overrides the runner's wait; 0 answers "accepted" at once, Infinity waits for the end. */
  waitMs?: number;
}

/** Jobs as tools use them: `ctx.jobs` on the tool context. */
export interface JobRunner {
  /**
   * Enqueues the job and waits up to `waitMs` for it. Resolves with the job's result, or with
   * a JobAccepted when the wait is over first. Rejects with InvalidJobPayloadError (nothing
   * enqueued) or JobFailedError (the job failed for good, with the handler's message).
   */
  run<J extends AnyJobDefinition>(job: J, payload: JobPayload<J>, options?: RunOptions<JobProgressOf<J>>): Promise<JobResultOf<J> | JobAccepted>;
  /** Enqueues without waiting; the handle awaits the result or listens to progress. */
  enqueue<J extends AnyJobDefinition>(job: J, payload: JobPayload<J>, options?: EnqueueOptions): Promise<JobHandle<JobResultOf<J>, JobProgressOf<J>>>;
}

export function createJobRunner(opts: {
  queue: JobQueue;
  /** Where progress comes from; the queue's own events unless given. */
  events?: JobEvents;
  logger?: Logger;
  /** Default wait of `run`, DEFAULT_RUN_WAIT_MS unless given. */
  waitMs?: number;
}): JobRunner {
  const { queue, logger } = opts;
  const events = opts.events ?? queue.events;
  const defaultWaitMs = checkWait(opts.waitMs ?? DEFAULT_RUN_WAIT_MS);

  return {
    enqueue: (job, payload, options) => enqueueJob(queue, job, payload, options),

    async run(job, payload, options = {}) {
      const { progress, signal, onEnqueued, waitMs = defaultWaitMs, ...enqueueOptions } = options;
      checkWait(waitMs);
      signal?.throwIfAborted();
      const handle = await enqueueJob(queue, job, payload, enqueueOptions);
      onEnqueued?.(handle.id);
      if (waitMs === 0) return new JobAccepted(handle.id, job.type);
      // Subscribed right after the enqueue resolves, before any later I/O: the job cannot have
      // reported yet (the in-process queue starts jobs on a later turn; BullMQ a few round trips
      // later, and its event reader was started before the add).
      const forwarder = progress ? forwardInOrder(job, progress, handle.id, logger) : undefined;
      const off = forwarder ? events.onProgress(handle.id, (p) => forwarder.push(p)) : () => {};
      // The caller gave up (an MCP notifications/cancelled, a client gone): the job is theirs alone, so stop it.
      const cancel = () =>
        void queue
          .cancel?.(handle.id, `job ${handle.id} (${job.type}) was cancelled by its caller`)
          .catch((err: unknown) => logger?.warn({ err, jobId: handle.id }, 'job cancel failed'));
      const cancelsJob = signal !== undefined && enqueueOptions.jobId === undefined;
      if (cancelsJob) signal.addEventListener('abort', cancel, { once: true });
      try {
        const result = await untilAborted(handle.finished(Number.isFinite(waitMs) ? waitMs : undefined), signal);
        // Every report comes before the end of its job: the caller sees them all, then the result.
        await forwarder?.drained();
        return result;
      } catch (err) {
        if (err instanceof JobTimeoutError) return new JobAccepted(handle.id, job.type);
        throw err;
      } finally {
        off();
        if (cancelsJob) signal.removeEventListener('abort', cancel);
      }
    },
  };
}

/** Parses each report with the job's schema and hands it on, one callback at a time. */
function forwardInOrder<J extends AnyJobDefinition>(job: J, callback: (progress: JobProgressOf<J>) => void | Promise<void>, jobId: string, logger: Logger | undefined) {
  let chain: Promise<void> = Promise.resolve();
  return {
    push(raw: unknown): void {
      const parsed = job.progress.safeParse(raw);
      if (!parsed.success) {
        // A consumer of another version may report what this one cannot read; progress is advisory.
        logger?.debug({ jobId, type: job.type }, 'unreadable job progress skipped');
        return;
      }
      chain = chain.then(() => callback(parsed.data as JobProgressOf<J>)).catch((err: unknown) => logger?.warn({ err, jobId, type: job.type }, 'job progress callback threw'));
    },
    drained: () => chain,
  };
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function checkWait(waitMs: number): number {
  if (!(waitMs >= 0)) throw new RangeError(`waitMs must be a number of milliseconds ≥ 0, got ${waitMs}`);
  return waitMs;
}
