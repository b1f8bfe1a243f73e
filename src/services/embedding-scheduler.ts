import type { Embedder } from '../embed/embedder.js';
import type { SpaceId } from '../embed/types.js';
import { LEXICAL_SPACE } from '../embed/spaces/registry.js';
import type { IndexSync } from '../index/sync.js';
import { enqueueJob } from '../jobs/define.js';
import type { JobHandle, JobQueue } from '../jobs/queue.js';
import type { Logger } from '../log.js';
import type { Db } from '../store/db.js';
import type { PendingVectors } from './pending-vectors.js';
import { StoreBursts } from './store-bursts.js';
import { writeEmbeddings, type EmbeddingWrite } from '../store/embeddings-repo.js';
import { nodesByNid } from '../store/nodes-repo.js';
import type { TxChange } from '../store/tx-log.js';
import { embedJob, embedJobId, embeddingText, enqueueFingerprints } from './embedding.js';
import { edgeEnds, enqueueGraphEmbedOfNodes } from './graph-embedding.js';
import { enqueueLinks } from './navigation/link-job.js';

/**
 * How long the jobs that follow a write (edges, fingerprints) wait before they start: the write
 * answers first, without them on its connection, and a burst of writes to one project shares one
 * fingerprint job (it is keyed by project and dedupes while it waits).
 */
export const FOLLOW_UP_DELAY_MS = 250;

export interface ScheduledEmbedding {
  /** True once every vector is in this process's indexes: every search signal finds the nodes. */
  searchable: boolean;
  /** True once the keyword (BM25) signal finds the nodes, which never waits for a job. */
  keywordSearchable: boolean;
  /**
   * The embed job, or null when the queue was unavailable (the outbox re-enqueues it once it is
   * back). A store that joined a burst (StoreBursts) shares the burst's job, queued once the job
   * before it ends.
   */
  jobId: string | null;
  /**
   * A write that answered before its vectors (`answerFirst`): settles once they are in this
   * process's indexes or the wait gave up. Absent when the write waited, or did not wait at all.
   */
  indexed?: Promise<void>;
}

/**
 * Every writer's way to get vectors for nodes it committed. The debt itself is already durable
 * (the outbox row written with the node, db/060); this is the fast path: one embed job per
 * batch, with an idempotent id per (nodes, versions), plus the keyword vectors written here
 * and now, so keyword search never waits for the queue or a worker.
 */
export type WrittenNode = { nid: number; version: number; id: string; project_id: string };

export class EmbeddingScheduler {
  /** Answer-first writes made while an answer-first embed job runs; null without `pending`. */
  private readonly bursts: StoreBursts | null;

  constructor(
    private readonly deps: {
      queue: JobQueue;
      /** This process's index replicas; null in processes without indexes. */
      indexSync: IndexSync | null;
      /** For writing keyword vectors at once; without them keyword search waits for the job too. */
      db?: Db;
      embedder?: Embedder;
      logger: Logger;
      /** How long a write waits for its vectors; 0 answers at once (distributed mode). */
      waitMs: number;
      /** Enqueue the automatic-edge job (link) after each write; on unless configured off. */
      autoEdges?: boolean;
      /** Where a write that answers before its vectors (`answerFirst`) is tracked for this process's reads. */
      pending?: PendingVectors;
    },
  ) {
    const { pending, queue, logger, waitMs } = deps;
    this.bursts = pending
      ? new StoreBursts({ queue, logger, waitMs, pending, follow: (handle, nodes) => this.followJob(handle, nodes), writeKeywordVectors: (nids) => this.writeKeywordVectors(nids) })
      : null;
  }

  /**
   * Call after committing nodes whose embedding text is new or changed. Embedded mode waits
   * (bounded) so the next query sees the vectors; with `answerFirst` the write answers once the
   * job is queued and this process's reads wait for the vectors instead (`PendingVectors`). A
   * failure here only delays embedding (the outbox dispatcher retries), so it never turns an
   * acknowledged write into an error.
   */
  async schedule(nodes: readonly WrittenNode[], opts: { wait?: boolean; keywordWritten?: boolean; background?: boolean; answerFirst?: boolean } = {}): Promise<ScheduledEmbedding> {
    if (nodes.length === 0) return { searchable: true, keywordSearchable: true, jobId: null };
    const nids = nodes.map((n) => n.nid);
    let jobId: string | null = null;
    // The caller wrote the keyword vectors with its rows (`keywordVectors`): the indexes take them
    // before the job is queued, so the answer never waits behind the job on the connection.
    const keyword = opts.keywordWritten && opts.wait === false ? await this.refresh().catch(() => false) : null;
    const waits = (opts.wait ?? true) && this.deps.waitMs > 0 && this.deps.indexSync !== null;
    const pending = waits && opts.answerFirst ? this.deps.pending : undefined;
    const bursts = pending ? this.bursts : null;
    if (bursts?.running) return bursts.join(nodes);
    // Set before the job is queued: a write made meanwhile joins the burst rather than queueing its own.
    if (bursts) bursts.running = true;
    try {
      // A write that waits for its vectors queues the follow-up jobs (fingerprints, edges) itself
      // once its vectors are in the index: queued by the embed job they would run beside the index
      // pull the caller waits for, on the same PGlite connection and main thread.
      const payload = waits ? { nids, defer_fingerprints: true } : { nids };
      // `background` (a write that answers before its vectors and may come in bursts, as merges
      // do): its embedding runs once the burst is over rather than beside the next write.
      const background = !waits && opts.background === true;
      const handle = await enqueueJob(this.deps.queue, embedJob, payload, { jobId: embedJobId(nids, nodes.map((n) => n.version).join('.')), background });
      jobId = handle.id;
      if (!waits) {
        // Edges follow in the background; the write never waits for them.
        await this.enqueueFollowUps(nodes, { fingerprints: false, delayMs: 0 });
      } else {
        const { done, followUps } = this.followJob(handle, nodes);
        if (pending && bursts) {
          // Answer-first writes that come while this job runs share the next one (StoreBursts).
          void handle
            .finished(this.deps.waitMs)
            .catch(() => undefined)
            .then(() => bursts.next());
          // In time, a write is settled once its follow-ups are queued too (what it set off is
          // then all in the queue); past the wait, at once.
          return { searchable: true, keywordSearchable: true, jobId, indexed: pending.track(done.then(() => followUps)) };
        }
        await done;
        return { searchable: true, keywordSearchable: true, jobId };
      }
    } catch (err) {
      this.deps.logger.warn({ err, ids: nodes.map((n) => n.id) }, 'embedding not ready in time; it continues in the background');
      bursts?.next();
    }
    return { searchable: false, keywordSearchable: keyword ?? (await this.writeKeywordVectors(nids)), jobId };
  }

  /**
   * A waited embed job's vectors in this process's indexes (`done`, bounded by waitMs), and its
   * follow-up jobs queued after them, whether in time or not.
   */
  private followJob(handle: JobHandle<{ feed_seq?: number | undefined }>, nodes: readonly WrittenNode[]): { done: Promise<void>; followUps: Promise<void> } {
    // The job's own position, when it says: its vectors, written in this process, need no feed read.
    const sync = this.deps.indexSync!;
    const done = handle.finished(this.deps.waitMs).then(async (r) => {
      if (r.feed_seq) await sync.reach(r.feed_seq);
      else await sync.pull();
    });
    const followUps = done
      .catch(() => handle.finished())
      .catch(() => undefined)
      .then(() => this.enqueueFollowUps(nodes, { fingerprints: true, delayMs: FOLLOW_UP_DELAY_MS }))
      .catch((err) => this.deps.logger.warn({ err }, 'follow-up jobs not queued; the fingerprints are queued again at start-up'));
    return { done, followUps };
  }

  /** The job a store burst named and has not queued yet (StoreBursts.unqueuedJob). */
  unqueuedBurst(jobId: string): { name: string; createdAt: Date } | null {
    return this.bursts?.unqueuedJob(jobId) ?? null;
  }

  /**
   * The jobs that follow a write's vectors: automatic edges, and (when the embed job was told to
   * leave them to its caller) the fingerprints it owed. A failure only logs: the fingerprint debt
   * is durable (fingerprint_outbox) and queued again at start-up.
   */
  private async enqueueFollowUps(nodes: ReadonlyArray<{ nid: number; version: number; project_id: string }>, opts: { fingerprints: boolean; delayMs: number }): Promise<void> {
    const options = { delayMs: opts.delayMs, background: true };
    if (this.deps.autoEdges ?? true) await enqueueLinks(this.deps.queue, nodes, options);
    if (opts.fingerprints) for (const projectId of new Set(nodes.map((n) => n.project_id))) await enqueueFingerprints(this.deps.queue, projectId, options);
  }

  /**
   * Keyword (E13) vectors for nodes a writer is about to commit, so it stores them in its own
   * transaction and schedules with `keywordWritten` (no second transaction, no read-back);
   * empty without a keyword encoder or indexes in this process.
   */
  async keywordVectors(nodes: ReadonlyArray<{ nid: number; topic: string | null; content: string }>): Promise<EmbeddingWrite[]> {
    const { embedder, indexSync } = this.deps;
    const encoder = embedder?.encoders().find((e) => e.space === LEXICAL_SPACE);
    if (!embedder || !encoder || !indexSync || nodes.length === 0) return [];
    const vectors = (await embedder.embed(nodes.map(embeddingText), [LEXICAL_SPACE])).get(LEXICAL_SPACE) ?? [];
    return nodes.flatMap((n, i) => (vectors[i] ? [{ nid: n.nid, space: LEXICAL_SPACE, modelId: encoder.modelId, vector: vectors[i] }] : []));
  }

  /**
   * The bulk path (`context-graph import`): one embed job for many nodes, queued without writing
   * keyword vectors here or pulling the index (the job writes every space, and the replica
   * follows the feed), and optionally without the per-job fingerprint job (the importer
   * enqueues it once its batches are in: `scheduleFingerprints`). Answers the job's handle so
   * a caller can bound how far its writes run ahead of embedding (null: the queue refused it;
   * the outbox re-enqueues the debt once it is back).
   */
  async scheduleBulk(
    nodes: ReadonlyArray<{ nid: number; version: number; id: string }>,
    opts: { deferFingerprints?: boolean; pass?: { spaces: readonly SpaceId[]; second: boolean } } = {},
  ): Promise<JobHandle | null> {
    if (nodes.length === 0) return null;
    const nids = nodes.map((n) => n.nid);
    const versions = nodes.map((n) => n.version);
    const { pass } = opts;
    try {
      const payload = {
        nids,
        ...(opts.deferFingerprints ? { defer_fingerprints: true } : {}),
        ...(pass ? { spaces: [...pass.spaces] } : {}),
        ...(pass?.second ? { first_pass_versions: versions } : {}),
      };
      // A pass has an id of its own: the other pass of the same nodes is not a duplicate of it.
      const jobId = embedJobId(nids, `${versions.join('.')}${pass ? (pass.second ? '-rest' : '-first') : ''}`);
      const handle = await enqueueJob(this.deps.queue, embedJob, payload, { jobId });
      // Automatic edges compare E1 vectors: queued with the pass that writes them. Behind the
      // passes (background) when there are two: an import is searchable before it is linked.
      if ((this.deps.autoEdges ?? true) && !pass?.second) await enqueueLinks(this.deps.queue, nodes, pass ? { background: true } : {});
      return handle;
    } catch (err) {
      this.deps.logger.warn({ err, nodes: nids.length }, 'embedding not queued; the outbox re-enqueues it');
      return null;
    }
  }

  /** Queues the fingerprint job of each project (one waiting job per project drains all it lacks). */
  async scheduleFingerprints(projectIds: Iterable<string>): Promise<JobHandle[]> {
    const handles: JobHandle[] = [];
    for (const projectId of new Set(projectIds)) handles.push(await enqueueFingerprints(this.deps.queue, projectId));
    return handles;
  }

  /**
   * Brings this process's indexes up to the feed (vectors written without a job, such as the
   * kept vectors a restore puts back); false when this process holds no indexes.
   */
  async refresh(): Promise<boolean> {
    if (!this.deps.indexSync) return false;
    await this.deps.indexSync.pull();
    return true;
  }

  /** The model id of each space this process embeds with (empty without an embedder). */
  activeModels(): Map<string, string> {
    return new Map((this.deps.embedder?.encoders() ?? []).map((e) => [e.space, e.modelId]));
  }

  /**
   * Call after committing a transaction that changed edges (`changes` as logged): queues the
   * graph-embed job for the live nodes at their ends, whose E8 vectors follow their edges.
   * `skip`: ids of nodes this write also re-embeds (the embed job recomputes their neighbourhood).
   * Like `schedule`, a failure only logs: the write is acknowledged, and any later change to
   * those nodes' edges or vectors recomputes them.
   */
  async graphChanged(changes: readonly TxChange[], skip?: ReadonlySet<string>): Promise<void> {
    const ends = edgeEnds(changes, skip);
    if (ends.length === 0 || !this.deps.db) return;
    try {
      await enqueueGraphEmbedOfNodes(this.deps.db, this.deps.queue, ends);
    } catch (err) {
      this.deps.logger.warn({ err, nodes: ends.length }, 'graph-embed not queued after an edge change');
    }
  }

  /** Whether this process runs the jobs it queues (embedded mode): then waiting on a job is bounded by this process's own work. */
  get consumesOwnJobs(): boolean {
    return this.deps.waitMs > 0 && this.deps.indexSync !== null;
  }

  /** The keyword space is cheap to encode, so the writer indexes it itself instead of waiting for the job. */
  private async writeKeywordVectors(nids: number[]): Promise<boolean> {
    const { db, embedder, indexSync, logger } = this.deps;
    const encoder = embedder?.encoders().find((e) => e.space === LEXICAL_SPACE);
    if (!db || !embedder || !encoder || !indexSync) return false;
    try {
      // Read again rather than trusting the caller: a concurrent update may have changed the text.
      const live = (await nodesByNid(db, nids)).filter((n) => n.deleted_at === null);
      const vectors = (await embedder.embed(live.map(embeddingText), [LEXICAL_SPACE])).get(LEXICAL_SPACE) ?? [];
      await writeEmbeddings(
        db,
        live.map((n, i) => ({ nid: n.nid, space: LEXICAL_SPACE, modelId: encoder.modelId, vector: vectors[i]! })),
      );
      await indexSync.pull();
      return true;
    } catch (err) {
      logger.warn({ err }, 'keyword vectors not written; the embed job writes them');
      return false;
    }
  }
}
