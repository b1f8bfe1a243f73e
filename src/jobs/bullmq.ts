import { Queue, QueueEvents, UnrecoverableError, Worker, type Job, type JobsOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { AppError } from '../errors.js';
import { createLogger, type Logger } from '../log.js';
import { bullmqRecords } from './bullmq-records.js';
import { JobEventBus } from './events.js';
import {
  JobFailedError,
  JobTimeoutError,
  type EnqueueOptions,
  type JobStateInfo,
  type JobContext,
  type JobHandle,
  type JobHandler,
  type JobProgress,
  type JobQueue,
} from './queue.js';
import { isConnectionError, rateLimitedErrorLog, waitForReady } from './redis-connection.js';

export interface BullmqQueueOptions {
  /** BullMQ queue name; one queue carries every job type (job name = type). */
  name?: string;
  /** Redis key prefix; tests use a fresh one so parallel runs do not collide. */
  prefix?: string;
  logger?: Logger;
  /** First retry delay in ms for exponential back-off. */
  backoffMs?: number;
  /** A producer command (enqueue, counts) not answered within this fails with QueueUnavailableError: a stalled Redis never hangs a call. */
  commandTimeoutMs?: number;
}

/**
 * Redis is unreachable, so the job was not enqueued. Retryable: the caller (a tool call) can
 * try again once Redis is back. An AppError so the MCP layer maps it to QUEUE_UNAVAILABLE.
 */
export class QueueUnavailableError extends AppError {
  override name = 'QueueUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('QUEUE_UNAVAILABLE', message, undefined, options);
  }
}

const DEFAULT_NAME = 'context-graph';
const DEFAULT_PREFIX = 'bull';
/** Any priority puts a job behind the unprioritised ones; one level is all the contract needs. */
const BACKGROUND_PRIORITY = 10;
const DEFAULT_ATTEMPTS = 3;
const DEFAULT_BACKOFF_MS = 1000;
/** How long an enqueue waits for the very first connection before calling Redis unavailable. */
const FIRST_CONNECT_WAIT_MS = 2000;
const DEFAULT_COMMAND_TIMEOUT_MS = 10_000;

// Finished jobs stay a while so an operator can look at them, but never pile up without bound.
const REMOVE_ON_COMPLETE = { count: 1000, age: 24 * 3600 };
const REMOVE_ON_FAIL = { count: 5000, age: 7 * 24 * 3600 };

/**
 * The distributed queue. Three kinds of Redis connection, each set up for its role:
 * - the producer (enqueue, counts, state look-ups) has the offline queue off, so a tool call
 *   fails at once with QueueUnavailableError instead of hanging while Redis is down;
 * - the Worker (created by `consume`) retries forever (`maxRetriesPerRequest: null`, which
 *   BullMQ requires for its blocking commands), so consumers ride out outages;
 * - one shared QueueEvents, created at the first enqueue or subscription, reads the queue's
 *   Redis event stream and feeds `events` (JobEvents), `finished()` and `onProgress`: progress
 *   reported by a worker in another process reaches the front end that listens.
 */
export function createBullmqQueue(redisUrl: string, opts: BullmqQueueOptions = {}): JobQueue {
  const name = opts.name ?? DEFAULT_NAME;
  const prefix = opts.prefix ?? DEFAULT_PREFIX;
  const logger = opts.logger ?? createLogger();
  const backoffMs = opts.backoffMs ?? DEFAULT_BACKOFF_MS;
  const logRedisError = rateLimitedErrorLog(logger, { queue: name, prefix });

  const producer = new Redis(redisUrl, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: FIRST_CONNECT_WAIT_MS,
    commandTimeout: opts.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
  });
  let producerEverReady = false;
  producer.on('ready', () => (producerEverReady = true));
  producer.on('error', (err) => logRedisError('producer', err));
  // A shared client: Queue.close() leaves it open, close() below quits it.
  const queue = new Queue(name, { connection: producer, prefix });
  // The Queue re-emits the producer's errors: same source, so one outage logs one line.
  queue.on('error', (err) => logRedisError('producer', err));

  const records = bullmqRecords(queue, producer, produce);
  const workerConnection = { url: redisUrl, maxRetriesPerRequest: null };
  let events: Promise<QueueEvents> | undefined;
  let worker: Worker | undefined;
  /** Jobs of this process's worker being cancelled, with the reason they fail with. */
  const cancelled = new Map<string, string>();
  /** Waiting jobs this process cancelled (BullMQ removes them), with the reason, the latest 1,000. */
  const cancelledWaiting = new Map<string, string>();
  const abort = new AbortController();
  const bus = new JobEventBus({
    logger,
    // Somebody listens: start reading the event stream. Redis down: the next enqueue or
    // subscription tries again (the producer already logs the outage).
    onSubscribe: () => void produce(queueEvents).catch(() => {}),
  });
  /** Settles pending finished() waiters when the queue closes. */
  const waiters = new Set<(err: Error) => void>();
  let closed = false;

  async function producerReady(): Promise<void> {
    if (closed) throw new Error('the job queue is closed');
    if (producer.status === 'ready') return;
    // Only the first connection gets a grace period; afterwards "not ready" means Redis is down.
    if (!producerEverReady && ['wait', 'connecting', 'connect'].includes(producer.status)) {
      try {
        await waitForReady(producer, FIRST_CONNECT_WAIT_MS);
        return;
      } catch (err) {
        throw unavailable(err);
      }
    }
    throw unavailable(undefined);
  }

  function unavailable(cause: unknown): QueueUnavailableError {
    return new QueueUnavailableError(`the job queue (Redis) is unavailable: connection ${producer.status}`, { cause });
  }

  /** Runs a producer command; connection failures become QueueUnavailableError. */
  async function produce<T>(fn: () => Promise<T>): Promise<T> {
    await producerReady();
    try {
      return await fn();
    } catch (err) {
      if (producer.status !== 'ready' || isConnectionError(err)) throw unavailable(err);
      throw err;
    }
  }

  /**
   * The QueueEvents reader starts at the events-stream position read just before it is made,
   * not at '$' (the position when its first XREAD runs): the job added next cannot slip its
   * events into the gap before the reader is listening.
   */
  function queueEvents(): Promise<QueueEvents> {
    if (events) return events;
    const created = (async () => {
      const last = await producer.xrevrange(queue.keys.events!, '+', '-', 'COUNT', 1);
      const qe = new QueueEvents(name, {
        connection: { ...workerConnection },
        prefix,
        lastEventId: last[0]?.[0] ?? '0-0',
      });
      qe.on('error', (err) => logRedisError('events', err));
      qe.on('progress', ({ jobId, data }) => bus.emitProgress(jobId, data as JobProgress));
      qe.on('completed', ({ jobId, returnvalue }) => bus.emitCompleted(jobId, returnvalue ?? null));
      // BullMQ emits `failed` only once attempts are exhausted, so one event settles a wait.
      qe.on('failed', ({ jobId, failedReason }) => bus.emitFailed(jobId, new JobFailedError(failedReason, { id: jobId })));
      return qe;
    })();
    events = created;
    // A failed start (Redis down) is retried by the next enqueue.
    created.catch(() => {
      if (events === created) events = undefined;
    });
    return created;
  }

  function handleOf(id: string, type: string): JobHandle {
    return {
      id,
      type,
      finished: (timeoutMs) => finished(id, type, timeoutMs),
      onProgress: (listener) => bus.onProgress(id, listener),
    };
  }

  function finished(id: string, type: string, timeoutMs: number | undefined): Promise<unknown> {
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const cleanup = () => {
        if (timer) clearTimeout(timer);
        offCompleted();
        offFailed();
        waiters.delete(onClose);
      };
      const onCompleted = (result: unknown) => {
        cleanup();
        resolve(result);
      };
      const onFailed = (reason: string) => {
        cleanup();
        reject(new JobFailedError(reason, { id, type }));
      };
      const onClose = (err: Error) => {
        cleanup();
        reject(err);
      };
      const offCompleted = bus.onCompleted(id, onCompleted);
      const offFailed = bus.onFailed(id, (err) => onFailed(err.message));
      waiters.add(onClose);
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          cleanup();
          reject(new JobTimeoutError(`job ${id} did not finish within ${timeoutMs} ms`));
        }, timeoutMs);
      }
      // The job may have finished before the listeners above were attached.
      void (async () => {
        try {
          // State first, record second: a record read while the job runs has no result yet.
          const state = await produce(() => queue.getJobState(id));
          if (state === 'unknown' && cancelledWaiting.has(id)) return onFailed(cancelledWaiting.get(id)!);
          if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return;
          const job = await produce(() => queue.getJob(id));
          if (!job) return onFailed(`job ${id} no longer exists`);
          if (state === 'completed') onCompleted(job.returnvalue ?? null);
          else onFailed(job.failedReason);
        } catch (err) {
          onClose(err as Error);
        }
      })();
    });
  }

  return {
    backend: 'bullmq',
    events: bus,

    async enqueue(type: string, payload: unknown, options: EnqueueOptions = {}): Promise<JobHandle> {
      // The reader starts before the add, so it cannot miss the new job's first events.
      await produce(queueEvents);
      const jobOpts: JobsOptions = {
        attempts: options.attempts ?? DEFAULT_ATTEMPTS,
        backoff: { type: 'exponential', delay: backoffMs },
        removeOnComplete: REMOVE_ON_COMPLETE,
        removeOnFail: REMOVE_ON_FAIL,
      };
      // Deduplication rather than a fixed BullMQ job id: its key lives only while the job waits
      // or runs, which is the contract. A fixed id would also block re-running a finished job
      // for as long as its record is kept.
      if (options.jobId !== undefined) jobOpts.deduplication = { id: options.jobId };
      if (options.delayMs !== undefined && options.delayMs > 0) jobOpts.delay = options.delayMs;
      // BullMQ runs jobs without a priority before any prioritised one.
      if (options.background) jobOpts.priority = BACKGROUND_PRIORITY;
      const job = await produce(() => queue.add(type, payload ?? null, jobOpts));
      return handleOf(job.id!, type);
    },

    async consume(handlers: Record<string, JobHandler>, options: { concurrency?: number } = {}): Promise<void> {
      if (closed) throw new Error('the job queue is closed');
      if (worker) throw new Error('consume() was already called on this queue');
      const table = new Map(Object.entries(handlers));
      worker = new Worker(
        name,
        async (job: Job, _token?: string, signal?: AbortSignal) => {
          const handler = table.get(job.name);
          // Every consumer of the one queue must handle every type; a gap is a deployment bug.
          if (!handler) throw new UnrecoverableError(`no handler for job type ${job.name} in this consumer`);
          const ctx: JobContext = {
            jobId: job.id!,
            attempt: job.attemptsMade + 1,
            signal: signal ? AbortSignal.any([abort.signal, signal]) : abort.signal,
            reportProgress: (progress) => job.updateProgress(progress),
          };
          try {
            return await handler(job.data, ctx);
          } catch (err) {
            // A cancelled job is not retried; it fails with the cancel's reason.
            const cancelledWith = cancelled.get(job.id!);
            if (cancelledWith !== undefined) throw new UnrecoverableError(cancelledWith);
            // By name, not instanceof: the error may come from a worker thread without its prototype.
            if (err instanceof Error && err.name === 'UnrecoverableJobError') {
              throw new UnrecoverableError(err.message);
            }
            throw err;
          } finally {
            cancelled.delete(job.id!);
          }
        },
        { connection: { ...workerConnection }, prefix, concurrency: options.concurrency ?? 1 },
      );
      worker.on('error', (err) => logRedisError('worker', err));
      worker.on('failed', (job, err) => logger.warn({ err, jobId: job?.id, type: job?.name, attempt: job?.attemptsMade }, 'job attempt failed'));
    },

    async state(jobId: string): Promise<JobStateInfo> {
      const state = await produce(() => queue.getJobState(jobId));
      if (state === 'active') return { state: 'active' };
      if (state === 'waiting' || state === 'delayed' || state === 'prioritized' || state === 'waiting-children') return { state: 'waiting' };
      if (state !== 'completed' && state !== 'failed') return cancelledWaiting.has(jobId) ? { state: 'failed', error: cancelledWaiting.get(jobId)! } : { state: 'unknown' };
      const job = await produce(() => queue.getJob(jobId));
      if (!job) return { state: 'unknown' };
      return state === 'completed' ? { state, result: job.returnvalue ?? null } : { state, error: job.failedReason };
    },

    record: (jobId) => records.record(jobId),
    records: (query) => records.records(query),

    async cancel(jobId: string, reason = `job ${jobId} was cancelled`): Promise<boolean> {
      // Running in this process: abort its signal. Waiting: remove it. Running in another
      // worker process: not reachable from here (BullMQ has no cross-process cancel).
      cancelled.set(jobId, reason);
      if (worker?.cancelJob(jobId, reason)) {
        await records.markCancelled(jobId, reason).catch((err: unknown) => logRedisError('producer', err));
        return true;
      }
      cancelled.delete(jobId);
      const state = await produce(() => queue.getJobState(jobId));
      if (state !== 'waiting' && state !== 'delayed' && state !== 'prioritized') return false;
      const job = await produce(() => queue.getJob(jobId));
      const removed = await produce(() => queue.remove(jobId));
      if (removed !== 1) return false;
      await records.markCancelled(jobId, reason, job).catch((err: unknown) => logRedisError('producer', err));
      cancelledWaiting.set(jobId, reason);
      if (cancelledWaiting.size > 1_000) cancelledWaiting.delete(cancelledWaiting.keys().next().value!);
      bus.emitFailed(jobId, new JobFailedError(reason, { id: jobId }));
      return true;
    },

    async counts() {
      const c = await produce(() => queue.getJobCounts('wait', 'prioritized', 'delayed', 'active', 'failed'));
      return {
        // Delayed jobs (retries waiting out their back-off, follow-ups waiting out their delay) are still work to do.
        waiting: (c.wait ?? 0) + (c.prioritized ?? 0) + (c.delayed ?? 0),
        active: c.active ?? 0,
        failed: c.failed ?? 0,
      };
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      abort.abort(new Error('the job queue is closing'));
      // The worker first: it waits for running jobs, which still report progress and finish.
      await worker?.close();
      const closing = new Error('the job queue closed');
      for (const settle of [...waiters]) settle(closing);
      const qe = await events?.catch(() => undefined);
      await qe?.close();
      await queue.close();
      if (producer.status === 'ready') await producer.quit().catch(() => producer.disconnect());
      else producer.disconnect();
    },
  };
}
