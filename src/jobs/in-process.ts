import { AsyncResource } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log.js';
import { JobEventBus } from './events.js';
import { InProcessRecords } from './records.js';
import { RunOrder, type Runnable } from './run-order.js';
import {
  JobCancelledError,
  JobFailedError,
  JobTimeoutError,
  type EnqueueOptions,
  type JobStateInfo,
  type JobContext,
  type JobHandle,
  type JobHandler,
  type JobQueue,
} from './queue.js';

export interface InProcessQueueOptions {
  /** Jobs run at once when `consume()` gives no concurrency. Default 1, as a BullMQ Worker. */
  concurrency?: number;
  logger?: Logger;
  /** First retry delay in ms; attempt n waits base × 2^(n−1). Tests set it low. */
  backoffMs?: number;
  /**
   * Background jobs start once no other job has run or been queued for this long (default 50 ms):
   * during a burst of writes their work waits for the burst to end instead of sharing the one
   * PGlite connection and the cores with each write.
   */
  backgroundQuietMs?: number;
  /** ...or once the oldest has been ready this long (default 1 s), so a steady stream cannot starve them. */
  backgroundMaxWaitMs?: number;
}

const DEFAULT_ATTEMPTS = 3;
const DEFAULT_BACKOFF_MS = 50;
/** Finished jobs whose outcome `state()` still knows, oldest forgotten first. */
const FINISHED_KEPT = 1_000;

type JobState = 'waiting' | 'delayed' | 'active';

interface Job extends Runnable {
  readonly id: string;
  readonly payload: unknown;
  readonly attempts: number;
  attempt: number;
  state: JobState;
  /** Set while the job waits out its delay or a retry's back-off. */
  startTimer: NodeJS.Timeout | undefined;
  /** Aborted by cancel(); the handler sees it together with the queue's own shutdown signal. */
  readonly cancel: AbortController;
  readonly done: Promise<unknown>;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

/**
 * The embedded-mode queue: jobs live in memory and run in this process. Nothing survives a
 * restart, which is fine because embedded callers rebuild derived state from the database
 * (at-least-once, idempotent handlers, as on BullMQ).
 *
 * Payloads and results go through a JSON round trip so a handler that works here also works on
 * BullMQ, where both cross Redis as JSON.
 */
export function createInProcessQueue(opts: InProcessQueueOptions = {}): JobQueue {
  const logger = opts.logger;
  const backoffMs = opts.backoffMs ?? DEFAULT_BACKOFF_MS;
  let concurrency = positiveInt(opts.concurrency ?? 1, 'concurrency');

  const handlers = new Map<string, JobHandler>();
  const order = new RunOrder<Job>((type) => handlers.has(type), { quietMs: opts.backgroundQuietMs ?? 50, maxWaitMs: opts.backgroundMaxWaitMs ?? 1_000 });
  /** Waiting, delayed and active jobs by id: the dedupe window of the contract. */
  const live = new Map<string, Job>();
  const running = new Set<Promise<void>>();
  const abort = new AbortController();
  let seq = 0;
  let active = 0;
  let activeBackground = 0;
  let backgroundTimer: NodeJS.Timeout | undefined;
  let failed = 0;
  let closed = false;
  let consuming = false;
  let pumpScheduled = false;
  const events = new JobEventBus({ logger });
  const finished = new Map<string, JobStateInfo>();
  const records = new InProcessRecords();
  // Jobs run in the queue's own async context, as on a worker, never in the context of the call
  // that happened to enqueue one (its idempotency key must not claim another call's writes).
  const queueScope = new AsyncResource('context-graph.in-process-queue');

  function remember(id: string, info: JobStateInfo): void {
    finished.delete(id);
    finished.set(id, info);
    if (finished.size > FINISHED_KEPT) finished.delete(finished.keys().next().value!);
  }

  function handleOf(job: Job): JobHandle {
    return {
      id: job.id,
      type: job.type,
      finished: (timeoutMs) => withTimeout(job.done, timeoutMs, job.id),
      onProgress: (listener) => events.onProgress(job.id, listener),
    };
  }

  function makeReady(job: Job): void {
    job.state = 'waiting';
    order.add(job);
  }

  /**
   * New jobs start on a later turn of the event loop, never inside enqueue(): the caller gets
   * its handle and subscribes to progress before the handler can report any, as on BullMQ,
   * where the job starts a few Redis round trips after it was added.
   */
  function schedulePump(): void {
    if (pumpScheduled) return;
    pumpScheduled = true;
    setImmediate(() =>
      queueScope.runInAsyncScope(() => {
        pumpScheduled = false;
        pump();
      }),
    );
  }

  function pump(): void {
    while (!closed && active < concurrency) {
      const { job, wakeInMs } = order.next({ active, activeBackground, concurrency });
      if (wakeInMs !== undefined) {
        // A background job may start later: look again then (a job finishing pumps sooner).
        clearTimeout(backgroundTimer);
        backgroundTimer = setTimeout(() => queueScope.runInAsyncScope(pump), wakeInMs);
      }
      if (!job) return;
      active++;
      if (job.background) activeBackground++;
      else order.touched();
      const run = runOnce(job).finally(() => {
        active--;
        if (job.background) activeBackground--;
        else order.touched();
        running.delete(run);
        pump();
      });
      running.add(run);
    }
  }

  async function runOnce(job: Job): Promise<void> {
    job.state = 'active';
    job.attempt++;
    records.started(job.id);
    const handler = handlers.get(job.type)!;
    const ctx: JobContext = {
      jobId: job.id,
      attempt: job.attempt,
      signal: AbortSignal.any([abort.signal, job.cancel.signal]),
      yieldToCallers: () => (job.background ? order.untilQuiet(Date.now(), foregroundIdle, () => closed) : Promise.resolve()),
      async reportProgress(progress) {
        // Through JSON, as on BullMQ: a listener never shares an object with the handler.
        records.progress(job.id, jsonCopy(progress) as typeof progress);
        events.emitProgress(job.id, jsonCopy(progress) as typeof progress);
      },
    };
    try {
      const result = jsonCopy(await handler(jsonCopy(job.payload), ctx));
      settle(job);
      remember(job.id, { state: 'completed', result });
      records.ended(job.id, { state: 'completed', result });
      job.resolve(result);
      events.emitCompleted(job.id, result);
    } catch (err) {
      // By name, not instanceof: the error may come back from a worker thread without its prototype.
      const unrecoverable = err instanceof Error && err.name === 'UnrecoverableJobError';
      if (unrecoverable || job.attempt >= job.attempts || closed || job.cancel.signal.aborted) {
        settle(job);
        failed++;
        logger?.warn({ err, jobId: job.id, type: job.type, attempt: job.attempt }, 'job failed');
        const reason = job.cancel.signal.aborted ? (job.cancel.signal.reason as Error) : err;
        fail(job, new JobFailedError(reason instanceof Error ? reason.message : String(reason), job, { cause: err }));
        return;
      }
      const delay = backoffMs * 2 ** (job.attempt - 1);
      logger?.debug({ err, jobId: job.id, type: job.type, attempt: job.attempt, delay }, 'job attempt failed; retrying');
      job.state = 'delayed';
      records.waiting(job.id);
      job.startTimer = setTimeout(() => {
        job.startTimer = undefined;
        makeReady(job);
        pump();
      }, delay);
    }
  }

  const foregroundIdle = () => active === activeBackground;

  function settle(job: Job): void {
    live.delete(job.id);
  }

  function fail(job: Job, error: JobFailedError): void {
    remember(job.id, { state: 'failed', error: error.message });
    records.ended(job.id, { state: job.cancel.signal.aborted ? 'cancelled' : 'failed', error: error.message });
    job.reject(error);
    events.emitFailed(job.id, error);
  }

  return {
    backend: 'in-process',
    events,

    async enqueue(type: string, payload: unknown, options: EnqueueOptions = {}): Promise<JobHandle> {
      if (closed) throw new Error('the job queue is closed');
      const id = options.jobId ?? randomUUID();
      const existing = live.get(id);
      if (existing) return handleOf(existing);
      let resolve!: (value: unknown) => void;
      let reject!: (err: unknown) => void;
      const done = new Promise<unknown>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      // Nobody may ever call finished(); a failure must not surface as an unhandled rejection.
      done.catch(() => {});
      const job: Job = {
        id,
        type,
        payload: jsonCopy(payload),
        attempts: positiveInt(options.attempts ?? DEFAULT_ATTEMPTS, 'attempts'),
        seq: seq++,
        background: options.background ?? false,
        readyAt: 0,
        attempt: 0,
        state: 'waiting',
        startTimer: undefined,
        cancel: new AbortController(),
        done,
        resolve,
        reject,
      };
      live.set(id, job);
      records.created(id, type);
      if (options.delayMs !== undefined && options.delayMs > 0) {
        job.state = 'delayed';
        job.startTimer = setTimeout(() => {
          job.startTimer = undefined;
          makeReady(job);
          schedulePump();
        }, options.delayMs);
      } else {
        makeReady(job);
        schedulePump();
      }
      return handleOf(job);
    },

    async consume(newHandlers: Record<string, JobHandler>, options: { concurrency?: number } = {}): Promise<void> {
      if (closed) throw new Error('the job queue is closed');
      // As on BullMQ, where one Worker serves the whole queue: all handlers in one call.
      if (consuming) throw new Error('consume() was already called on this queue');
      consuming = true;
      for (const [type, handler] of Object.entries(newHandlers)) handlers.set(type, handler);
      if (options.concurrency !== undefined) concurrency = positiveInt(options.concurrency, 'concurrency');
      pump();
    },

    async state(jobId: string): Promise<JobStateInfo> {
      const job = live.get(jobId);
      if (job) return { state: job.state === 'active' ? 'active' : 'waiting' };
      return finished.get(jobId) ?? { state: 'unknown' };
    },

    record: async (jobId) => records.get(jobId),
    records: async (query) => records.list(query),

    async cancel(jobId: string, reason = `job ${jobId} was cancelled`): Promise<boolean> {
      const job = live.get(jobId);
      if (!job) return false;
      job.cancel.abort(new JobCancelledError(reason));
      if (job.state === 'active') return true;
      // Not running: it never will.
      if (job.startTimer) clearTimeout(job.startTimer);
      order.remove(job);
      settle(job);
      fail(job, new JobFailedError(reason, job));
      return true;
    },

    async counts() {
      let waiting = 0;
      let running = 0;
      for (const job of live.values()) {
        if (job.state === 'active') running++;
        else waiting++;
      }
      return { waiting, active: running, failed };
    },

    async close(): Promise<void> {
      if (closed) {
        await Promise.allSettled([...running]);
        return;
      }
      closed = true;
      clearTimeout(backgroundTimer);
      abort.abort(new Error('the job queue is closing'));
      // Jobs that have not started never will: fail them so their waiters are not left hanging.
      for (const job of live.values()) {
        if (job.state === 'active') continue;
        if (job.startTimer) clearTimeout(job.startTimer);
        settle(job);
        fail(job, new JobFailedError(`the job queue closed before job ${job.id} ran`, job));
      }
      order.clear();
      await Promise.allSettled([...running]);
    },
  };
}

function withTimeout(done: Promise<unknown>, timeoutMs: number | undefined, jobId: string): Promise<unknown> {
  if (timeoutMs === undefined) return done;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new JobTimeoutError(`job ${jobId} did not finish within ${timeoutMs} ms`)), timeoutMs);
    done.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

function jsonCopy(value: unknown): unknown {
  // BullMQ stores `undefined` as no value at all and hands back null; match it.
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}

function positiveInt(value: number, option: string): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${option} must be a positive integer, got ${value}`);
  return value;
}
