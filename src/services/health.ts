import type { Embedder } from '../embed/embedder.js';
import { describeSpaces, type SpaceSummary } from '../embed/spaces/registry.js';
import type { IndexSync } from '../index/sync.js';
import type { VectorIndexes } from '../index/vector-index.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Db, DbDriver } from '../store/db.js';
import { storeLocation } from '../store/tx-log.js';
import { VERSION } from '../version.js';
import type { EmbeddingOutbox } from './embedding-outbox.js';

/** Each probe answers within this, so /healthz answers within about a second whatever hangs. */
export const HEALTH_PROBE_MS = 800;
/** Owed embeddings older than this mean new writes are not becoming searchable: degraded. */
export const OUTBOX_LAG_DEGRADED_MS = 60_000;

export type DependencyStatus = 'up' | 'down';

export interface Health {
  /** ok: everything up; degraded: writes are kept but search lags (queue down, outbox late); down: the store is unreachable. */
  status: 'ok' | 'degraded' | 'down';
  version: string;
  /** What is wrong, in words, one entry per degraded dependency; empty when ok. */
  problems: string[];
  store: { status: DependencyStatus; driver: Db['driver']; last_tx_id: number | null };
  queue: {
    status: DependencyStatus;
    backend: JobQueue['backend'];
    consumer: 'this-process' | 'workers';
    counts: { waiting: number; active: number; failed: number } | null;
  };
  /** Nodes whose vectors are owed (db/060 outbox) and the age of the oldest debt; null when the store is down. */
  outbox: { depth: number; oldest_ms: number } | null;
  embedding: ReturnType<Embedder['encoders']>;
  /** All 13 spaces of the registry, with this process's encoder of each (null: planned). */
  spaces: SpaceSummary[];
  index: { sizes: Awaited<ReturnType<VectorIndexes['sizes']>>; feed_position: number };
  /** Seed 004's preflight fields: E1's provider and model (null when E1 has no encoder). */
  embedding_provider: string | null;
  embedding_model: string | null;
  /**
   * Seed 004's `<vector store>` section, named for our stores: the database (`postgres` or
   * `pglite`, whichever runs) holds the vectors in `<schema>.embeddings`, `vector_size` is E1's
   * dimension; the job queue (`bullmq` or `in-process`); `usearch`, each space's index.
   */
  postgres?: VectorStoreSection;
  pglite?: VectorStoreSection;
  bullmq?: QueueSection;
  'in-process'?: QueueSection;
  usearch: { reachable: boolean; spaces: Record<string, { dimension: number; size: number; model: string }> };
}

export interface VectorStoreSection {
  reachable: boolean;
  collection: string | null;
  vector_size: number | null;
  last_tx_id: number | null;
}

export interface QueueSection {
  reachable: boolean;
  waiting: number | null;
  active: number | null;
  failed: number | null;
}

/** Seed 004's `{embedding_provider, embedding_model, <store>: {reachable, collection, vector_size}}`, for our stores. */
function seedSections(
  driver: DbDriver,
  queueBackend: JobQueue['backend'],
  encoders: ReturnType<Embedder['encoders']>,
  location: { schema: string; last_tx_id: number } | null,
  counts: { waiting: number; active: number; failed: number } | null,
  sizes: Awaited<ReturnType<VectorIndexes['sizes']>> | null,
): Pick<Health, 'embedding_provider' | 'embedding_model' | DbDriver | QueueBackendKey | 'usearch'> {
  const e1 = encoders.find((e) => e.space === 'E1') ?? null;
  const store: VectorStoreSection = {
    reachable: location !== null,
    collection: location ? `${location.schema}.embeddings` : null,
    vector_size: e1?.dim ?? null,
    last_tx_id: location?.last_tx_id ?? null,
  };
  const queue: QueueSection = { reachable: counts !== null, waiting: counts?.waiting ?? null, active: counts?.active ?? null, failed: counts?.failed ?? null };
  const spaces = Object.fromEntries(encoders.map((e) => [e.space, { dimension: e.dim, size: sizes?.[e.space] ?? 0, model: e.modelId }]));
  return {
    embedding_provider: e1?.provider ?? null,
    embedding_model: e1?.modelId ?? null,
    [driver]: store,
    [queueBackend]: queue,
    usearch: { reachable: sizes !== null, spaces },
  };
}

type QueueBackendKey = JobQueue['backend'];

class ProbeTimeout extends Error {}

/** Settles with the probe's value, or its failure, or a timeout: a stalled dependency cannot hold /healthz. */
async function probe<T>(fn: () => Promise<T>, ms = HEALTH_PROBE_MS): Promise<{ ok: true; value: T } | { ok: false; error: string }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProbeTimeout(`no answer within ${ms} ms`)), ms);
  });
  try {
    return { ok: true, value: await Promise.race([fn(), timeout]) };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message.split('\n')[0]!.slice(0, 200) : String(err) };
  } finally {
    clearTimeout(timer);
  }
}

/** The preflight report (seed 004 health resource, `/healthz`): every figure read live, each probe time-boxed. */
export class HealthService {
  constructor(
    private readonly deps: {
      db: Db;
      queue: JobQueue;
      embedder: Embedder;
      indexes: VectorIndexes;
      indexSync: IndexSync;
      consumesJobs: boolean;
      outbox: EmbeddingOutbox;
    },
  ) {}

  async report(): Promise<Health> {
    const { db, queue, embedder, indexes, indexSync, consumesJobs, outbox } = this.deps;
    // While the snapshot loads, the index thread answers nothing (its reads wait for the load).
    const loading = indexSync.loading;
    const [tx, counts, owed, sizes] = await Promise.all([
      probe(() => storeLocation(db)),
      probe(() => queue.counts()),
      probe(() => outbox.depth()),
      loading ? Promise.resolve({ ok: false as const, error: 'loading' }) : probe(() => indexes.sizes()),
    ]);
    const problems: string[] = [];
    if (!tx.ok) problems.push(`store (${db.driver}) unreachable: ${tx.error}; tools answer DB_UNAVAILABLE`);
    if (!counts.ok) problems.push(`job queue (${queue.backend}) unreachable: ${counts.error}; writes are kept and become searchable when it is back`);
    if (owed.ok && owed.value.oldest_ms > OUTBOX_LAG_DEGRADED_MS) {
      problems.push(`${owed.value.depth} memories wait for embedding, the oldest for ${Math.round(owed.value.oldest_ms / 1000)} s`);
    }
    if (loading) problems.push('vector indexes are loading their snapshot; searches wait for it');
    else if (!sizes.ok) problems.push(`vector indexes did not answer: ${sizes.error}`);
    return {
      status: !tx.ok ? 'down' : problems.length > 0 ? 'degraded' : 'ok',
      version: VERSION,
      problems,
      store: { status: tx.ok ? 'up' : 'down', driver: db.driver, last_tx_id: tx.ok ? tx.value.last_tx_id : null },
      queue: { status: counts.ok ? 'up' : 'down', backend: queue.backend, consumer: consumesJobs ? 'this-process' : 'workers', counts: counts.ok ? counts.value : null },
      outbox: owed.ok ? owed.value : null,
      embedding: embedder.encoders(),
      spaces: describeSpaces(embedder.encoders()),
      index: { sizes: sizes.ok ? sizes.value : {}, feed_position: indexSync.position },
      ...seedSections(db.driver, queue.backend, embedder.encoders(), tx.ok ? tx.value : null, counts.ok ? counts.value : null, sizes.ok ? sizes.value : null),
    };
  }
}
