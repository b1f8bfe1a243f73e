import { describeIssues, type AnyJobDefinition } from './define.js';
import { UnrecoverableJobError, type JobHandler, type JobProgress, type JobQueue } from './queue.js';

/**
 * Starts consuming every job of `jobs` on `queue`, each handler given `deps`. A consumer takes
 * the whole list at once (BullMQ runs one Worker per queue, and every consumer of a queue must
 * handle every type), so callers pass the deployment's one list rather than picking types.
 *
 * The consumer validates again what the producer validated: a payload from a producer of
 * another version, a result or progress that breaks the job's own schema, each fail the job
 * at once, since a retry would break the same way.
 */
export async function consumeJobs<Deps>(queue: JobQueue, jobs: ReadonlyArray<AnyJobDefinition<Deps>>, deps: Deps, options: { concurrency?: number } = {}): Promise<void> {
  const handlers: Record<string, JobHandler> = {};
  for (const job of jobs) {
    if (Object.hasOwn(handlers, job.type)) throw new Error(`two job definitions have the type ${job.type}`);
    handlers[job.type] = validatingHandler(job, deps);
  }
  await queue.consume(handlers, options);
}

function validatingHandler<Deps>(job: AnyJobDefinition<Deps>, deps: Deps): JobHandler {
  return async (rawPayload, ctx) => {
    const payload = job.payload.safeParse(rawPayload);
    if (!payload.success) throw new UnrecoverableJobError(`invalid payload for job ${job.type}: ${describeIssues(payload.error)}`);
    const result = await job.handler(payload.data, {
      jobId: ctx.jobId,
      attempt: ctx.attempt,
      signal: ctx.signal,
      deps,
      yieldToCallers: () => ctx.yieldToCallers?.() ?? Promise.resolve(),
      async report(progress) {
        const parsed = job.progress.safeParse(progress);
        if (!parsed.success) throw new UnrecoverableJobError(`invalid progress from job ${job.type}: ${describeIssues(parsed.error)}`);
        await ctx.reportProgress(parsed.data as JobProgress);
      },
    });
    const checked = job.result.safeParse(result);
    if (!checked.success) throw new UnrecoverableJobError(`invalid result from job ${job.type}: ${describeIssues(checked.error)}`);
    return checked.data as unknown;
  };
}
