import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from './config.js';
import type { Embedder } from './embed/embedder.js';
import { createEmbedder } from './embed/pool.js';
import { describeSpaces, type SpaceSummary } from './embed/spaces/registry.js';
import { IndexSync } from './index/sync.js';
import { createVectorIndexes } from './index/usearch-host.js';
import type { SpaceIndexSpec, VectorIndexes } from './index/vector-index.js';
import { openQueue } from './jobs/open.js';
import type { JobQueue } from './jobs/queue.js';
import type { Logger } from './log.js';
import { ChangeFeed } from './services/change-feed.js';
import { TX_CHANNEL } from './services/writes.js';
import { createEmbedJobHandler, EMBED_JOB, enqueueEmbeddingBacklog } from './services/embedding.js';
import { IngestService } from './services/ingest.js';
import { MemoryService } from './services/memory.js';
import { ReadService } from './services/reads.js';
import { SearchService } from './services/search.js';
import type { Db } from './store/db.js';
import { openStore } from './store/open.js';
import { latestTxId } from './store/tx-log.js';

export const VERSION = '0.1.0';

/** Everything a front end (serve, stdio) needs: built once per process, shared by all sessions. */
export interface App {
  config: Config;
  logger: Logger;
  db: Db;
  queue: JobQueue;
  embedder: Embedder;
  indexes: VectorIndexes;
  indexSync: IndexSync;
  memory: MemoryService;
  search: SearchService;
  reads: ReadService;
  ingest: IngestService;
  /** Committed transactions from any process on this database, in tx_id order. */
  changes: ChangeFeed;
  /** Whether this process runs the embedding jobs itself. */
  consumesJobs: boolean;
  health(): Promise<Health>;
  close(): Promise<void>;
}

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

function indexSnapshotDir(config: Config): string | null {
  // A snapshot is only trustworthy when this process owns the database (embedded mode).
  return config.databaseUrl ? null : join(config.dataDir, 'index');
}

export async function createApp(config: Config, logger: Logger): Promise<App> {
  const closers: Array<() => Promise<unknown>> = [];
  const closeAll = async () => {
    for (const close of closers.reverse()) await close().catch((err) => logger.warn({ err }, 'close failed'));
  };
  try {
    const db = await openStore(config, logger);
    closers.push(() => db.close());
    const queue = openQueue(config, logger);
    closers.push(() => queue.close());
    const embedder = await createEmbedder({ modelDir: config.modelDir, logger });
    closers.push(() => embedder.close());
    const indexes = createVectorIndexes({ logger });
    closers.push(() => indexes.close());

    const specs: SpaceIndexSpec[] = embedder.encoders().map((e) => ({ space: e.space, dim: e.dim, modelId: e.modelId }));
    for (const spec of specs) await indexes.ensure(spec);
    const snapshotDir = indexSnapshotDir(config);
    let fromSeq = 0;
    if (snapshotDir) {
      fromSeq = await indexes.loadSnapshot(snapshotDir, specs);
      const [row] = await db.query<{ max: number | null }>(`select max(feed_seq) as max from embeddings`);
      if (fromSeq > (row?.max ?? 0)) {
        // The snapshot is newer than the database (the database was replaced): start over.
        for (const spec of specs) await indexes.ensure({ ...spec, modelId: `${spec.modelId}#reset` }), await indexes.ensure(spec);
        fromSeq = 0;
      }
    }
    const indexSync = new IndexSync(db, indexes, specs, logger);
    await indexSync.start(fromSeq);
    closers.push(async () => {
      await indexSync.stop();
      if (snapshotDir) {
        await mkdir(snapshotDir, { recursive: true });
        await indexes.saveSnapshot(snapshotDir, indexSync.position);
      }
    });

    // PGlite cannot be shared with a worker process, so embedded mode always embeds in process.
    const consumesJobs = queue.backend === 'in-process' || !config.databaseUrl;
    if (consumesJobs) await queue.consume({ [EMBED_JOB]: createEmbedJobHandler({ db, embedder, logger }) });
    const embedWaitMs = consumesJobs ? config.embedWaitMs : 0;
    await enqueueEmbeddingBacklog({ db, queue, embedder, logger });

    const changes = new ChangeFeed(db, logger);
    await changes.start();
    closers.push(() => changes.stop());
    if (db.driver === 'pglite') closers.push(await keepStatisticsFresh(db, logger));

    const search = new SearchService({ db, embedder, indexes });
    const memory = new MemoryService({ db, queue, indexSync, logger, embedWaitMs, search });
    return {
      config, logger, db, queue, embedder, indexes, indexSync, memory, search, reads: new ReadService(db), ingest: new IngestService({ db, memory }), changes, consumesJobs,
      async health() {
        return {
          status: 'ok',
          version: VERSION,
          store: { driver: db.driver, last_tx_id: await latestTxId(db) },
          queue: { backend: queue.backend, consumer: consumesJobs ? 'this-process' : 'workers', counts: await queue.counts().catch(() => null) },
          embedding: embedder.encoders(),
          spaces: describeSpaces(embedder.encoders()),
          index: { sizes: await indexes.sizes(), feed_position: indexSync.position },
        };
      },
      close: closeAll,
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

/**
 * PGlite runs no autovacuum, so without this the planner never learns table sizes and picks
 * plans that scan a whole project. Analyze at start and after every couple of thousand
 * transactions (counted from their announcements, which costs no query).
 */
async function keepStatisticsFresh(db: Db, logger: Logger): Promise<() => Promise<void>> {
  const EVERY_TRANSACTIONS = 2_000;
  let pending = 0;
  let running: Promise<void> | null = null;
  const analyze = () => {
    running ??= db
      .query('analyze')
      .then(() => undefined)
      .catch((err) => logger.warn({ err }, 'analyze failed'))
      .finally(() => {
        running = null;
      });
  };
  const unlisten = await db.listen(TX_CHANNEL, () => {
    if (++pending >= EVERY_TRANSACTIONS) {
      pending = 0;
      analyze();
    }
  });
  analyze();
  return async () => {
    await unlisten();
    await running;
  };
}

/** `context-graph worker`: consumes embedding jobs from BullMQ; holds no indexes. */
export async function runWorker(config: Config, logger: Logger, opts: { concurrency?: number } = {}): Promise<{ close(): Promise<void> }> {
  const db = await openStore(config, logger);
  const queue = openQueue(config, logger);
  const embedder = await createEmbedder({ modelDir: config.modelDir, logger });
  await queue.consume({ [EMBED_JOB]: createEmbedJobHandler({ db, embedder, logger }) }, { concurrency: opts.concurrency ?? 4 });
  logger.info({ queue: queue.backend, store: db.driver, encoders: embedder.encoders() }, 'worker consuming jobs');
  return {
    async close() {
      await queue.close();
      await embedder.close();
      await db.close();
    },
  };
}
