import type { z } from 'zod';
import { AppError } from '../errors.js';
import { JobFailedError, type EnqueueOptions, type JobHandle, type JobProgress, type JobQueue } from './queue.js';

/**
 * A job type is one declaration: its name on the queue, zod schemas for what crosses the queue
 * (payload in, progress and result out) and the handler. Producers enqueue through it, consumers
 * register it (registry.ts), so both sides validate against the same schemas.
 *
 * Everything crossing the queue is JSON (BullMQ stores it in Redis; the in-process queue copies
 * through JSON to match), so the schemas describe JSON values: no Dates, no Maps, and no
 * transforms whose output would not parse again, since each side parses what it receives.
 */
export interface JobDefinition<P extends z.ZodType = z.ZodType, G extends z.ZodType<JobProgress> = z.ZodType<JobProgress>, R extends z.ZodType = z.ZodType, Deps = unknown> {
  /** The name on the queue: unique among the jobs of one deployment. */
  readonly type: string;
  readonly payload: P;
  readonly progress: G;
  readonly result: R;
  /** Tries in all unless an enqueue says otherwise; the queue's default (3) when absent. */
  readonly attempts?: number | undefined;
  /**
   * True when a result reports that the job stopped on request (a dream aborted by abort_dream):
   * its record reads `cancelled`, with the result as its partial outcome. Absent: never.
   */
  readonly cancelledBy?: ((result: z.output<R>) => boolean) | undefined;
  // A property, not a method: parameters are then checked strictly (not bivariantly), so a
  // consumer that lacks a dependency the handler needs is a type error.
  readonly handler: (payload: z.output<P>, ctx: JobHandlerContext<z.input<G>, Deps>) => Promise<z.input<R>>;
}

/** What a handler gets besides its payload. */
export interface JobHandlerContext<Progress, Deps = unknown> {
  readonly jobId: string;
  /** 1 on the first try. */
  readonly attempt: number;
  /** Aborted when the consumer shuts down: wrap up or throw, the job is retried elsewhere. */
  readonly signal: AbortSignal;
  /**
   * Validates against the job's progress schema, then publishes to every observer of the job,
   * in order, on whichever process enqueued it. Await it: a rejected report fails the job.
   */
  readonly report: (progress: Progress) => Promise<void>;
  /** Built by the consumer (front end or worker) and handed to every handler: never a global. */
  readonly deps: Deps;
  /** JobContext.yieldToCallers: a long background job awaits it (when given) between batches. */
  readonly yieldToCallers?: () => Promise<void>;
}

/**
 * Any job, whatever its schemas, needing at most `Deps`: the element type of a job list. The
 * `any` is confined to this alias, where a list of different jobs needs it; each job keeps
 * its own types.
 */
/* eslint-disable @typescript-eslint/no-explicit-any */
export type AnyJobDefinition<Deps = any> = JobDefinition<z.ZodType<any>, z.ZodType<any>, z.ZodType<any>, Deps>;
/* eslint-enable @typescript-eslint/no-explicit-any */

/** What a producer passes: the payload schema's input (before defaults apply). */
export type JobPayload<J extends AnyJobDefinition> = z.input<J['payload']>;
/** What an observer receives from `report`. */
export type JobProgressOf<J extends AnyJobDefinition> = z.output<J['progress']>;
/** What a finished job resolves with. */
export type JobResultOf<J extends AnyJobDefinition> = z.output<J['result']>;

/**
 * Declares a job type. Handlers that need dependencies say so on their context parameter:
 * `async handler(payload, ctx: JobHandlerContext<MyProgress, MyDeps>)`; the consumer that
 * registers the job must then provide them (a type error otherwise).
 */
export function defineJob<P extends z.ZodType, G extends z.ZodType<JobProgress>, R extends z.ZodType, Deps = unknown>(
  definition: JobDefinition<P, G, R, Deps>,
): JobDefinition<P, G, R, Deps> {
  if (!/^[a-z][a-z0-9_.-]*$/.test(definition.type)) {
    throw new TypeError(`job type must be lowercase letters, digits, '.', '_' or '-', got ${JSON.stringify(definition.type)}`);
  }
  return Object.freeze({ ...definition });
}

/**
 * The payload does not match the job's schema, so nothing was enqueued. INVALID_PARAMS: when a
 * tool passes its arguments on to a job, this is the caller's mistake and says what to fix.
 */
export class InvalidJobPayloadError extends AppError {
  override name = 'InvalidJobPayloadError';
  constructor(jobType: string, error: z.ZodError) {
    super('INVALID_PARAMS', `invalid payload for job ${jobType}: ${describeIssues(error)}`, {
      job_type: jobType,
      issues: error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
    });
  }
}

/** Zod issues on one line, `path: message; …`: short enough for a log line or a failed reason. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length > 0 ? i.path.map(String).join('.') : '(root)'}: ${i.message}`).join('; ');
}

/** Validates the payload, enqueues it and returns a handle typed by the job's schemas. */
export async function enqueueJob<J extends AnyJobDefinition>(
  queue: JobQueue,
  job: J,
  payload: JobPayload<J>,
  options: EnqueueOptions = {},
): Promise<JobHandle<JobResultOf<J>, JobProgressOf<J>>> {
  const parsed = job.payload.safeParse(payload);
  if (!parsed.success) throw new InvalidJobPayloadError(job.type, parsed.error);
  const defaults: EnqueueOptions = job.attempts === undefined ? {} : { attempts: job.attempts };
  const handle = await queue.enqueue(job.type, parsed.data, { ...defaults, ...options });
  return typedHandle(job, handle);
}

/**
 * The receiving side parses too: a consumer running another version of the job may send what
 * this version cannot read. A result that does not parse fails the wait; progress that does not
 * parse is skipped, since progress is advisory.
 */
function typedHandle<J extends AnyJobDefinition>(job: J, handle: JobHandle): JobHandle<JobResultOf<J>, JobProgressOf<J>> {
  return {
    id: handle.id,
    type: handle.type,
    async finished(timeoutMs) {
      const result = job.result.safeParse(await handle.finished(timeoutMs));
      if (result.success) return result.data as JobResultOf<J>;
      throw new JobFailedError(`job ${job.type} returned a result this process cannot read: ${describeIssues(result.error)}`, handle);
    },
    onProgress(listener) {
      return handle.onProgress((progress) => {
        const parsed = job.progress.safeParse(progress);
        if (parsed.success) listener(parsed.data as JobProgressOf<J>);
      });
    },
  };
}
