/**
 * The job queue contract, with two backends: BullMQ over ioredis (REDIS_URL set) and an
 * in-process queue (embedded default). Delivery is at-least-once on both, so every handler
 * must be idempotent: running a job twice leaves the same state as running it once.
 *
 * This is the untyped transport: job types are strings and payloads `unknown`. Code outside
 * src/jobs declares jobs with `defineJob` (define.ts), which validates what crosses the queue.
 *
 * Not in the contract: Redis keys, BullMQ options, how a backend stores jobs.
 */
import type { JobRecord, RecordQuery } from './records.js';

export type JobProgress = number | Record<string, unknown>;

export interface JobContext {
  readonly jobId: string;
  /** 1 on the first try. */
  readonly attempt: number;
  readonly signal: AbortSignal;
  reportProgress(progress: JobProgress): Promise<void>;
  /**
   * For a background job between its batches: resolves once the work callers wait for has been
   * quiet a while (in process; at most the background wait bound later). Absent or immediate
   * where the queue has no such notion (BullMQ runs jobs in worker processes).
   */
  yieldToCallers?(): Promise<void>;
}

export type JobHandler = (payload: unknown, ctx: JobContext) => Promise<unknown>;

export interface EnqueueOptions {
  /** A job with the same id that is still waiting or running is not added twice. */
  jobId?: string;
  /** Tries in all, default 3, with exponential back-off. */
  attempts?: number;
  /**
   * Runs no sooner than this many ms from now. Meanwhile the job counts as waiting and dedupes
   * by `jobId`, so follow-up work queued after every write of a burst runs once, after it.
   */
  delayMs?: number;
  /**
   * Work nobody waits for (edges, fingerprints after a write): it runs after the waiting jobs
   * that are not background, so a write's own embed job never queues behind it. In process it
   * also never takes the last free slot; on BullMQ it is a prioritised job (after unprioritised ones).
   */
  background?: boolean;
}

export interface JobHandle<Result = unknown, Progress = JobProgress> {
  readonly id: string;
  readonly type: string;
  /**
   * Resolves with the handler's result once the job completes; rejects with a JobFailedError
   * when all attempts fail, or with a JobTimeoutError after `timeoutMs` (the job itself goes on).
   */
  finished(timeoutMs?: number): Promise<Result>;
  /** Progress events for this job; returns an unsubscribe function. */
  onProgress(listener: (progress: Progress) => void): Unsubscribe;
}

export type Unsubscribe = () => void;

/**
 * What happens to a job, by id, seen from any process: on BullMQ the events come through Redis,
 * so a front end hears the progress of a job that a worker elsewhere runs.
 *
 * Events are delivered from the moment of subscription; nothing is replayed. A job that may
 * already be done is awaited through its handle's `finished()`, which checks the job's state.
 * Listeners of a job are dropped once it completes or fails.
 */
export interface JobEvents {
  onProgress(jobId: string, listener: (progress: JobProgress) => void): Unsubscribe;
  onCompleted(jobId: string, listener: (result: unknown) => void): Unsubscribe;
  /** Only once the last attempt failed: retries are not failures to an observer. */
  onFailed(jobId: string, listener: (error: JobFailedError) => void): Unsubscribe;
}

export type QueueBackend = 'in-process' | 'bullmq';

export interface JobQueue {
  readonly backend: QueueBackend;
  readonly events: JobEvents;
  enqueue(type: string, payload: unknown, options?: EnqueueOptions): Promise<JobHandle>;
  /** Starts consuming jobs of the given types in this process. */
  consume(handlers: Record<string, JobHandler>, options?: { concurrency?: number }): Promise<void>;
  /**
   * Where a job is, by id: `unknown` when this queue never had it or has forgotten it (finished
   * jobs are remembered for a while: BullMQ keeps their records, the in-process queue the latest).
   * Optional so test doubles need not implement it.
   */
  state?(jobId: string): Promise<JobStateInfo>;
  /**
   * Stops a job: a waiting one never runs, a running one sees its `signal` aborted (handlers check
   * it between batches) and fails without retry. False when the job is not waiting or running
   * here (on BullMQ: not waiting, nor running in this process's worker).
   */
  cancel?(jobId: string, reason?: string): Promise<boolean>;
  /** What the queue remembers of one job (./records.ts); null when it never had it or forgot it. */
  record?(jobId: string): Promise<JobRecord | null>;
  /** Remembered jobs, newest first (./records.ts). */
  records?(query: RecordQuery): Promise<JobRecord[]>;
  /** Counts of waiting/active/failed jobs, for /healthz. */
  counts(): Promise<{ waiting: number; active: number; failed: number }>;
  close(): Promise<void>;
}

export type JobStateInfo = { state: 'waiting' | 'active' | 'unknown' } | { state: 'completed'; result: unknown } | { state: 'failed'; error: string };

/** The reason a cancelled job's signal carries; handlers may throw it as is. */
export class JobCancelledError extends Error {
  override name = 'JobCancelledError';
}

export class JobTimeoutError extends Error {
  override name = 'JobTimeoutError';
}

/**
 * A job that failed for good. The message is the handler's own error message and nothing else,
 * the same on both backends (BullMQ keeps only the message of the last error).
 */
export class JobFailedError extends Error {
  override name = 'JobFailedError';
  readonly jobId: string;
  readonly jobType: string | undefined;
  constructor(message: string, job: { id: string; type?: string | undefined }, options?: { cause?: unknown }) {
    super(message, options);
    this.jobId = job.id;
    this.jobType = job.type;
  }
}

/** Thrown by a handler to fail the job at once with no further attempts. Recognised by name. */
export class UnrecoverableJobError extends Error {
  override name = 'UnrecoverableJobError';
}
