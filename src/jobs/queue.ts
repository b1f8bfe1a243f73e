/**
 * The job queue contract, with two backends: BullMQ over ioredis (REDIS_URL set) and an
 * in-process queue (embedded default). Delivery is at-least-once on both, so every handler
 * must be idempotent: running a job twice leaves the same state as running it once.
 *
 * Not in the contract: Redis keys, BullMQ options, how a backend stores jobs.
 */
export type JobProgress = number | Record<string, unknown>;

export interface JobContext {
  readonly jobId: string;
  /** 1 on the first try. */
  readonly attempt: number;
  readonly signal: AbortSignal;
  reportProgress(progress: JobProgress): Promise<void>;
}

export type JobHandler = (payload: any, ctx: JobContext) => Promise<unknown>;

export interface EnqueueOptions {
  /** A job with the same id that is still waiting or running is not added twice. */
  jobId?: string;
  /** Tries in all, default 3, with exponential back-off. */
  attempts?: number;
}

export interface JobHandle {
  readonly id: string;
  /**
   * Resolves with the handler's result once the job completes; rejects with the last error when
   * all attempts fail, or with a JobTimeoutError after `timeoutMs` (the job itself goes on).
   */
  finished(timeoutMs?: number): Promise<unknown>;
  /** Progress events for this job; returns an unsubscribe function. */
  onProgress(listener: (progress: JobProgress) => void): () => void;
}

export type QueueBackend = 'in-process' | 'bullmq';

export interface JobQueue {
  readonly backend: QueueBackend;
  enqueue(type: string, payload: unknown, options?: EnqueueOptions): Promise<JobHandle>;
  /** Starts consuming jobs of the given types in this process. */
  consume(handlers: Record<string, JobHandler>, options?: { concurrency?: number }): Promise<void>;
  /** Counts of waiting/active/failed jobs, for /healthz. */
  counts(): Promise<{ waiting: number; active: number; failed: number }>;
  close(): Promise<void>;
}

export class JobTimeoutError extends Error {
  override name = 'JobTimeoutError';
}

/** Thrown by a handler to fail the job at once with no further attempts. Recognised by name. */
export class UnrecoverableJobError extends Error {
  override name = 'UnrecoverableJobError';
}
