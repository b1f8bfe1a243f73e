import type { Embedder } from '../embed/embedder.js';
import { describeSpaces, type SpaceSummary } from '../embed/spaces/registry.js';
import type { IndexSync } from '../index/sync.js';
import type { VectorIndexes } from '../index/vector-index.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Db } from '../store/db.js';
import { latestTxId } from '../store/tx-log.js';
import { VERSION } from '../version.js';

export interface Health {
  status: 'ok';
  version: string;
  store: { driver: Db['driver']; last_tx_id: number };
  queue: { backend: JobQueue['backend']; consumer: 'this-process' | 'workers'; counts: { waiting: number; active: number; failed: number } | null };
  embedding: ReturnType<Embedder['encoders']>;
  /** All 13 spaces of the registry, with this process's encoder of each (null: planned). */
  spaces: SpaceSummary[];
  index: { sizes: Awaited<ReturnType<VectorIndexes['sizes']>>; feed_position: number };
}

/** The preflight report (seed 004 health resource, `/healthz`): every figure read live. */
export class HealthService {
  constructor(private readonly deps: { db: Db; queue: JobQueue; embedder: Embedder; indexes: VectorIndexes; indexSync: IndexSync; consumesJobs: boolean }) {}

  async report(): Promise<Health> {
    const { db, queue, embedder, indexes, indexSync, consumesJobs } = this.deps;
    return {
      status: 'ok',
      version: VERSION,
      store: { driver: db.driver, last_tx_id: await latestTxId(db) },
      queue: { backend: queue.backend, consumer: consumesJobs ? 'this-process' : 'workers', counts: await queue.counts().catch(() => null) },
      embedding: embedder.encoders(),
      spaces: describeSpaces(embedder.encoders()),
      index: { sizes: await indexes.sizes(), feed_position: indexSync.position },
    };
  }
}
