import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from './config.js';
import type { Embedder } from './embed/embedder.js';
import { createEmbedder } from './embed/pool.js';
import { IndexSync } from './index/sync.js';
import { createVectorIndexes } from './index/usearch-host.js';
import type { SpaceIndexSpec, VectorIndexes } from './index/vector-index.js';
import { SNAPSHOT_FORMAT, type SnapshotMeta } from './index/protocol.js';
import { resolveSpec, type ResolvedSpec } from './index/space-index.js';
import { spaceById } from './embed/spaces/registry.js';
import { openQueue } from './jobs/open.js';
import type { JobHandle, JobQueue } from './jobs/queue.js';
import { logRingOf, type Logger } from './log.js';
import { ChangeFeed } from './services/change-feed.js';
import { systemClock, type Clock } from './services/clock.js';
import { CurationService } from './services/curation.js';
import { LineageService } from './services/lineage.js';
import { MergeService } from './services/merge.js';
import { RetrievalLog } from './services/retrieval-log.js';
import { SummaryService } from './services/summaries.js';
import { CollectionsService } from './services/collections.js';
import { TX_CHANNEL } from './services/writes.js';
import { keepTablesMaintained } from './store/pglite-maintenance.js';
import { enqueueEmbeddingBacklog, enqueueFingerprintBacklog } from './services/embedding.js';
import { EmbeddingScheduler } from './services/embedding-scheduler.js';
import { EmbeddingOutbox } from './services/embedding-outbox.js';
import { EntriesService } from './services/entries.js';
import { GraphService } from './services/graph.js';
import { HealthService, type Health } from './services/health.js';
import { HistoryService } from './services/history.js';
import type { Services } from './services/index.js';
import { consumeAllJobs } from './services/jobs.js';
import { createJobRunner, type JobRunner } from './jobs/runner.js';
import { IngestService } from './services/ingest.js';
import { ExportService } from './services/export.js';
import { ImportService } from './services/import.js';
import { MemoryService } from './services/memory.js';
import { IdempotencyService } from './services/idempotency.js';
import { ProjectReports } from './services/project-reports.js';
import { ProjectService } from './services/projects.js';
import { NavigationService } from './services/navigation/navigation.js';
import { indexedNearest, scannedNearest } from './services/navigation/nearest.js';
import { TeleologyService } from './services/teleology.js';
import { MetacognitionService } from './services/metacognition/service.js';
import { WorkspaceService } from './services/cognition/workspace.js';
import { EgoService } from './services/cognition/ego.js';
import { AutonomyService } from './services/cognition/autonomy.js';
import { MetaUtlService } from './services/cognition/meta-utl.js';
import { ReadService } from './services/reads.js';
import { ResourceReadService } from './services/resource-reads.js';
import { SearchService } from './services/search.js';
import { PendingVectors } from './services/pending-vectors.js';
import { AdversarialService } from './services/diagnostics/adversarial.js';
import { HomeostasisService } from './services/diagnostics/homeostasis.js';
import { ManifestService } from './services/diagnostics/manifest.js';
import { RetrievalDiagnostics } from './services/diagnostics/retrieval.js';
import { DreamService } from './services/dreams/dreams.js';
import { SignalsService } from './services/signals/signals.js';
import type { Db } from './store/db.js';
import { openStore } from './store/open.js';
import { JobRecordsService } from './services/job-records.js';
import { TeleologyQueries } from './services/teleology-queries.js';
import { CausalInference } from './services/causal-inference.js';

export { VERSION } from './version.js';
export type { Health };

/**
 * The composition root: the only place that builds infrastructure and services. Everything a
 * front end (serve, stdio) needs, built once per process and shared by all sessions.
 */
export interface App {
  config: Config;
  logger: Logger;
  services: Services;
  /** Runs queued jobs and waits for them; tools get it per call as ctx.jobs. */
  jobs: JobRunner;
  /** Infrastructure, for the composition root's own tests and the benchmarks; tools never see it. */
  db: Db;
  queue: JobQueue;
  embedder: Embedder;
  indexes: VectorIndexes;
  indexSync: IndexSync;
  /** Whether this process runs the embedding jobs itself. */
  consumesJobs: boolean;
  health(): Promise<Health>;
  close(): Promise<void>;
}

function indexSnapshotDir(config: Config): string | null {
  // A snapshot is only trustworthy when this process owns the database (embedded mode).
  return config.databaseUrl ? null : join(config.dataDir, 'index');
}

/**
 * `clock` is what recovery windows are measured with; tests pass one that runs ahead.
 * `answerWhileIndexesLoad`: return before the index snapshot is loaded (serve and stdio answer
 * at once; searches wait for it). Otherwise the app returns with its indexes current.
 */
export async function createApp(config: Config, logger: Logger, opts: { clock?: Clock; answerWhileIndexesLoad?: boolean } = {}): Promise<App> {
  const closers: Array<() => Promise<unknown>> = [];
  const closeAll = async () => {
    for (const close of closers.reverse()) await close().catch((err) => logger.warn({ err }, 'close failed'));
  };
  try {
    // The store opens (PGlite: seconds at 100k memories) while the index thread reads the
    // snapshot: neither needs the other until the snapshot's feed position is checked below.
    const opening = openStore(config, logger);
    opening.catch(() => {});
    closers.push(async () => (await opening.catch(() => null))?.close());
    const embedder = await createEmbedder({ modelDir: config.modelDir, logger });
    closers.push(() => embedder.close());
    const indexes = createVectorIndexes({ logger });
    closers.push(() => indexes.close());

    const specs: SpaceIndexSpec[] = embedder.encoders().map((e) => ({ space: e.space, dim: e.dim, modelId: e.modelId }));
    for (const spec of specs) await indexes.ensure(spec);
    const snapshotDir = indexSnapshotDir(config);
    // The spaces default search reads load first; a read waits only for its own spaces' load.
    const searchFirst = [...specs].sort((a, b) => spaceById(b.space).weight - spaceById(a.space).weight);
    const loading = snapshotDir ? indexes.loadSnapshot(snapshotDir, searchFirst) : Promise.resolve(0);
    loading.catch(() => {});
    const db = await opening;
    // When the snapshot holds the whole feed and every space, a search only needs its spaces
    // loaded; otherwise (a crash after the last snapshot, a changed model) it waits for the replay.
    const feedEnd = snapshotDir ? await lastFeedPosition(db) : 0;
    const snapshotComplete = snapshotDir !== null && (await snapshotCoversFeed(snapshotDir, specs, feedEnd));
    const queue = await openQueue(config, logger);
    closers.push(() => queue.close());
    const indexSync = new IndexSync(db, indexes, specs, logger);
    // The replica follows the feed from the snapshot's position once the snapshot is in (seconds
    // at 100k memories, a minute at 1M). A front end answers meanwhile (`answerWhileIndexesLoad`):
    // searches wait for it like for any pending vectors, and so does what pulls the feed.
    const indexesReady = indexSync.startWhen(snapshotPosition({ indexes, specs, logger }, loading, snapshotDir ? feedEnd : null));
    indexesReady.catch((err) => logger.error({ err }, 'index replica did not start: searches use the indexes as they are'));
    closers.push(async () => {
      await indexesReady.catch(() => undefined);
      await indexSync.stop();
      if (snapshotDir) {
        await mkdir(snapshotDir, { recursive: true });
        await indexes.saveSnapshot(snapshotDir, indexSync.position);
      }
    });

    // PGlite cannot be shared with a worker process, so embedded mode always embeds in process.
    const consumesJobs = queue.backend === 'in-process' || !config.databaseUrl;
    if (consumesJobs) await consumeAllJobs(queue, { db, embedder, logger, queue, nearest: indexedNearest({ db, indexes, indexSync }) });
    // Closers run in reverse: the jobs this process runs finish (or stop between batches) before
    // the embedder, indexes and store they use close. Closing the queue again later is a no-op.
    if (consumesJobs) closers.push(() => queue.close());
    const embedWaitMs = consumesJobs ? config.embedWaitMs : 0;
    // Stores answer before their vectors; reads wait for them (bounded by embedWaitMs), and so
    // does closing: the queue closes only once the vectors of every answered store are written.
    const pendingVectors = new PendingVectors();
    closers.push(async () => void (await pendingVectors.settled()));
    if (!snapshotComplete) void pendingVectors.track(indexesReady);
    if (!opts.answerWhileIndexesLoad) await indexesReady;
    // Redis down at start: the outbox below re-enqueues new writes once it is back; the
    // backlog of another model waits for the next start. Stores a crash left without vectors are
    // in the backlog: the first reads wait for them as they would have for the stores themselves.
    const backlog: JobHandle[] = [];
    await enqueueEmbeddingBacklog({ db, queue, embedder, logger }, { onQueued: (job) => backlog.push(job) }).catch((err) => logger.warn({ err }, 'embedding backlog not queued'));
    if (embedWaitMs > 0 && backlog.length > 0) void pendingVectors.track(Promise.allSettled(backlog.map((job) => job.finished(embedWaitMs))).then(() => indexSync.pull()));
    await enqueueFingerprintBacklog({ db, queue, embedder, logger }).catch((err) => logger.warn({ err }, 'fingerprint backlog not queued'));
    const outbox = new EmbeddingOutbox({ db, queue, logger });
    outbox.start();
    closers.push(() => outbox.stop());

    const changes = new ChangeFeed(db, logger);
    await changes.start();
    closers.push(() => changes.stop());
    const maintenance = db.driver === 'pglite' ? await keepTablesMaintained(db, { channel: TX_CHANNEL, logger }) : null;
    if (maintenance) closers.push(() => maintenance.close());

    // The learning signals' cache (fusion weights, MMR λ, score threshold) that search reads per query.
    const signals = new SignalsService({ db, queue, logger, syncEvery: config.syncEvery });
    await signals.start();
    closers.push(() => signals.stop());
    const search = new SearchService({ db, embedder, indexes, logger: logger.child({ component: 'retrieval' }), dynamics: signals, pending: pendingVectors });
    const embedding = new EmbeddingScheduler({ db, embedder, queue, indexSync, logger, waitMs: embedWaitMs, autoEdges: config.autoEdges, pending: pendingVectors });
    const memory = new MemoryService({ db, embedding, logger: logger.child({ component: 'storage' }), search });
    const history = new HistoryService({ db, embedding, indexes, spaces: embedder.encoders().map((e) => e.space), logger });
    const entries = new EntriesService({ db, embedding });
    const projects = new ProjectService({ db, embedding, entries });
    const clock = opts.clock ?? systemClock;
    const homeostasis = new HomeostasisService({ db, search, clock });
    const curation = new CurationService({
      db,
      history,
      clock,
      logger: logger.child({ component: 'curation' }),
      guard: homeostasis,
      embedding,
      indexes,
      spaces: embedder.encoders().map((e) => e.space),
    });
    const teleology = new TeleologyService({ db, embedder, search });
    const workspace = new WorkspaceService({ db, embedder, clock: opts.clock ?? systemClock, size: config.workspaceSize, holdMinutes: config.broadcastHoldMinutes, sync: signals });
    const e1ModelId = () => workspace.e1ModelId();
    const autonomy = new AutonomyService({
      db,
      queue,
      embedding,
      e1ModelId,
      schedule: { intervalMinutes: config.autonomyIntervalMinutes, driftLevel: config.autonomyDriftLevel, strength: config.autonomyDriftStrength },
    });
    if (config.autonomyIntervalMinutes > 0) closers.push(scheduleAutonomy(autonomy, config.autonomyIntervalMinutes, logger));
    // A logged retrieval announces no transaction, yet it prunes the log and counts accesses (dead rows to vacuum).
    const retrievalLog = new RetrievalLog({
      db,
      logger,
      afterRecord: () => {
        signals.noteRetrieval();
        maintenance?.nudge();
      },
    });
    closers.push(async () => void (await retrievalLog.settled()));
    const services: Services = {
      memory,
      search,
      pendingVectors,
      changes,
      reads: new ReadService(db),
      resourceReads: new ResourceReadService(db),
      ingest: new IngestService({ db, embedding }),
      entries,
      graph: new GraphService({ db, embedding, queue }),
      history,
      health: new HealthService({ db, queue, embedder, indexes, indexSync, consumesJobs, outbox }),
      curation,
      merge: new MergeService({ db, embedder, embedding }),
      lineage: new LineageService({ db }),
      projects,
      projectReports: new ProjectReports({ db, search, projects }),
      bulkImport: new ImportService({ db, embedding }),
      bulkExport: new ExportService(db),
      navigation: new NavigationService({ db, queue, logger }),
      teleology,
      summaries: new SummaryService({ db, embedding }),
      metacognition: new MetacognitionService({ db, embedder, search, curation, teleology, clock, logger, logRing: logRingOf(logger) }),
      homeostasis,
      adversarial: new AdversarialService({ db, embedder, nearest: indexedNearest({ db, indexes, indexSync }) }),
      retrievalDiagnostics: new RetrievalDiagnostics({ db, embedder, indexes, search }),
      manifest: new ManifestService({ db, embedding, manifestPath: config.manifestPath, dataDir: config.dataDir }),
      collections: new CollectionsService({ db }),
      dreams: new DreamService({ db, queue, nearest: indexedNearest({ db, indexes, indexSync }), clock: opts.clock ?? systemClock }),
      workspace,
      ego: new EgoService({ db, e1ModelId }),
      autonomy,
      metaUtl: new MetaUtlService({ db }),
      idempotency: new IdempotencyService({ db, shared: Boolean(config.databaseUrl) }),
      retrievalLog,
      signals,
      jobRecords: new JobRecordsService({ queue, unqueued: (id) => embedding.unqueuedBurst(id) }),
      teleologyQueries: new TeleologyQueries({ db, embedder, search, teleology }),
      causalInference: new CausalInference({ db, embedder, indexes }),
    };
    const jobs = createJobRunner({ queue, logger, waitMs: config.jobWaitMs });
    return { config, logger, services, jobs, db, queue, embedder, indexes, indexSync, consumesJobs, health: () => services.health.report(), close: closeAll };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

/** The feed's last position (0 when empty). */
async function lastFeedPosition(db: Db): Promise<number> {
  const [row] = await db.query<{ max: number | null }>(`select max(feed_seq) as max from embeddings`);
  return Number(row?.max ?? 0);
}

/**
 * The feed position the replica starts from: the loaded snapshot's, or 0 (replay the feed into
 * empty spaces) when the snapshot is past `feedEnd`, the feed's end at start (the database was
 * replaced), or could not be read. `feedEnd` is null without a snapshot directory.
 */
async function snapshotPosition(
  deps: { indexes: VectorIndexes; specs: readonly SpaceIndexSpec[]; logger: Logger },
  loading: Promise<number>,
  feedEnd: number | null,
): Promise<number> {
  const { indexes, specs, logger } = deps;
  const startOver = async () => {
    for (const spec of specs) (await indexes.ensure({ ...spec, modelId: `${spec.modelId}#reset` }), await indexes.ensure(spec));
    return 0;
  };
  let fromSeq: number;
  try {
    fromSeq = await loading;
  } catch (err) {
    logger.warn({ err }, 'index snapshot not loaded: the indexes are rebuilt from the feed');
    return startOver();
  }
  return feedEnd !== null && fromSeq > feedEnd ? startOver() : fromSeq;
}

/** Whether the snapshot in `dir` was saved at `feedEnd` with every space as `specs` has it (what the index thread's load checks). */
async function snapshotCoversFeed(dir: string, specs: readonly SpaceIndexSpec[], feedEnd: number): Promise<boolean> {
  let meta: SnapshotMeta;
  try {
    meta = JSON.parse(await readFile(join(dir, 'meta.json'), 'utf8')) as SnapshotMeta;
  } catch {
    return false;
  }
  if (meta.version > SNAPSHOT_FORMAT) return false;
  const saved = new Map(meta.spaces.map((s) => [s.space, s]));
  const matches = (spec: ResolvedSpec) => {
    const s = saved.get(spec.space);
    return s !== undefined && s.modelId === spec.modelId && s.dim === spec.dim && s.index === spec.index;
  };
  return specs.map(resolveSpec).every(matches) && meta.feedSeq === feedEnd;
}

/** Scheduled autonomous passes (off unless --autonomy-interval-minutes > 0); returns the stopper. */
function scheduleAutonomy(autonomy: AutonomyService, minutes: number, logger: Logger): () => Promise<void> {
  const timer = setInterval(() => {
    autonomy
      .scheduledPass()
      .then((queued) => logger.info({ queued }, 'autonomous pass queued'))
      .catch((err) => logger.warn({ err }, 'autonomous pass failed'));
  }, minutes * 60_000);
  timer.unref();
  return async () => clearInterval(timer);
}

/** `context-graph worker`: consumes embedding jobs from BullMQ; holds no indexes. */
export async function runWorker(config: Config, logger: Logger, opts: { concurrency?: number } = {}): Promise<{ close(): Promise<void> }> {
  const db = await openStore(config, logger);
  const queue = await openQueue(config, logger);
  const embedder = await createEmbedder({ modelDir: config.modelDir, logger });
  await consumeAllJobs(queue, { db, embedder, logger, queue, nearest: scannedNearest(db) }, { concurrency: opts.concurrency ?? 4 });
  logger.info({ queue: queue.backend, store: db.driver, encoders: embedder.encoders() }, 'worker consuming jobs');
  return {
    async close() {
      await queue.close();
      await embedder.close();
      await db.close();
    },
  };
}
