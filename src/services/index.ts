import type { ChangeFeed } from './change-feed.js';
import type { EntriesService } from './entries.js';
import type { GraphService } from './graph.js';
import type { HealthService } from './health.js';
import type { HistoryService } from './history.js';
import type { IngestService } from './ingest.js';
import type { MemoryService } from './memory.js';
import type { ReadService } from './reads.js';
import type { ResourceReadService } from './resource-reads.js';
import type { SearchService } from './search.js';

export type { JobRunner } from '../jobs/runner.js';
export type { JobProgress } from '../jobs/queue.js';

/**
 * The one list of services. Built once by the composition root (src/app.ts); tools, resources
 * and prompts receive it, never the App, so they see the domain and not its infrastructure.
 */
export interface Services {
  memory: MemoryService;
  entries: EntriesService;
  ingest: IngestService;
  graph: GraphService;
  history: HistoryService;
  search: SearchService;
  reads: ReadService;
  /** Snapshot reads behind the resources (as of a transaction, keyset-paged) and completions. */
  resourceReads: ResourceReadService;
  /** Committed transactions from any process on this database, in tx_id order. */
  changes: ChangeFeed;
  health: HealthService;
}
