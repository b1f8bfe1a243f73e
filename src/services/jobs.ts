import type { Embedder } from '../embed/embedder.js';
import type { AnyJobDefinition } from '../jobs/define.js';
import type { JobQueue } from '../jobs/queue.js';
import { consumeJobs } from '../jobs/registry.js';
import type { Logger } from '../log.js';
import type { Db } from '../store/db.js';
import { embedJob } from './embedding.js';

/**
 * What every job handler may use, built by the process that consumes jobs (the front end in
 * embedded mode, `context-graph worker` otherwise). A job declares the part it needs; a job
 * needing something not listed here does not compile into JOBS.
 */
export interface JobDeps {
  db: Db;
  embedder: Embedder;
  logger: Logger;
}

/**
 * Every job type of the deployment, in one list. A new job type is one file in its service plus
 * one line here. Both consumers register this list through `consumeAllJobs`, so "every consumer
 * handles every type" (src/jobs/bullmq.ts) holds by construction.
 */
export const JOBS: ReadonlyArray<AnyJobDefinition<JobDeps>> = [embedJob];

/** Starts consuming every job type of JOBS on `queue`. */
export function consumeAllJobs(queue: JobQueue, deps: JobDeps, options: { concurrency?: number } = {}): Promise<void> {
  return consumeJobs(queue, JOBS, deps, options);
}
