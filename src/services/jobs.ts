import type { Embedder } from '../embed/embedder.js';
import type { AnyJobDefinition } from '../jobs/define.js';
import type { JobQueue } from '../jobs/queue.js';
import { consumeJobs } from '../jobs/registry.js';
import type { Logger } from '../log.js';
import type { Db } from '../store/db.js';
import { embedJob } from './embedding.js';
import { mergeJob } from './merge.js';
import { hyperbolicFitJob } from './navigation/hyperbolic-job.js';
import { linkJob } from './navigation/link-job.js';
import type { NearestMemories } from './navigation/nearest.js';
import { fingerprintJob } from './fingerprints.js';
import { graphEmbedJob } from './graph-embedding.js';
import { summaryJob } from './summaries.js';
import { adversarialScanJob } from './diagnostics/adversarial.js';
import { consolidationJob, dreamJob } from './dreams/job.js';
import { driftCorrectionJob } from './cognition/drift-job.js';
import { lambdaRecalibrationJob } from './cognition/meta-utl-job.js';
import { recalibrationJob } from './signals/recalibration.js';
import { kuramotoSyncJob } from './signals/sync-job.js';

/**
 * What every job handler may use, built by the process that consumes jobs (the front end in
 * embedded mode, `context-graph worker` otherwise). A job declares the part it needs; a job
 * needing something not listed here does not compile into JOBS.
 */
export interface JobDeps {
  db: Db;
  embedder: Embedder;
  logger: Logger;
  /** Jobs that enqueue follow-up jobs (embed → fingerprint, link → hyperbolic-fit). */
  queue: JobQueue;
  /** E1 neighbours for the link job: the index in a front end, an exact scan in a worker. */
  nearest: NearestMemories;
}

/**
 * Every job type of the deployment, in one list. A new job type is one file in its service plus
 * one line here. Both consumers register this list through `consumeAllJobs`, so "every consumer
 * handles every type" (src/jobs/bullmq.ts) holds by construction.
 */
export const JOBS: ReadonlyArray<AnyJobDefinition<JobDeps>> = [
  embedJob,
  mergeJob,
  linkJob,
  hyperbolicFitJob,
  fingerprintJob,
  summaryJob,
  adversarialScanJob,
  dreamJob,
  consolidationJob,
  driftCorrectionJob,
  lambdaRecalibrationJob,
  kuramotoSyncJob,
  recalibrationJob,
  graphEmbedJob,
];

/** Starts consuming every job type of JOBS on `queue`. */
export function consumeAllJobs(queue: JobQueue, deps: JobDeps, options: { concurrency?: number } = {}): Promise<void> {
  return consumeJobs(queue, JOBS, deps, options);
}
