import { randomBytes } from 'node:crypto';
import type { SpaceId } from '../embed/types.js';
import { AppError } from '../errors.js';
import { dropKeysEverywhere, type VectorIndexes } from '../index/vector-index.js';
import type { Db, Queryable } from '../store/db.js';
import { curateNode, purgeNode, recordReversal, reversalByHash, tombstoneNode, tombstones, type TombstoneRow } from '../store/curation-repo.js';
import { lockLiveEdgesOfNodes, softDeleteEdges } from '../store/edges-repo.js';
import { retractEmbeddings, sweepRetainedEmbeddings } from '../store/embeddings-repo.js';
import { lockNodesById, nodeById, type NodeRecord } from '../store/nodes-repo.js';
import type { TxChange } from '../store/tx-log.js';
import type { Logger } from '../log.js';
import type { Clock } from './clock.js';
import type { EmbeddingScheduler } from './embedding-scheduler.js';
import type { HistoryService, RevertedEntity, UndoResult } from './history.js';
import { image, writeTransaction } from './writes.js';

/** How long a soft delete (or any curation) stays reversible (seed 001: 30 days). */
export const RECOVERY_WINDOW_DAYS = 30;
export const RECOVERY_WINDOW_MS = RECOVERY_WINDOW_DAYS * 24 * 60 * 60 * 1000;
/** How often (at most, per process, after a forget) vectors kept past the window are dropped. */
const SWEEP_EVERY_MS = 60 * 60 * 1000;

export const DOMAINS = ['Code', 'Medical', 'Legal', 'Creative', 'Research', 'General'] as const;
export const FORGET_REASONS = ['obsolete', 'duplicate', 'incorrect', 'user_requested', 'semantic_cancer'] as const;
export type ForgetReason = (typeof FORGET_REASONS)[number];

export interface Annotations {
  tags?: string[] | undefined;
  domain?: (typeof DOMAINS)[number] | undefined;
  confidence?: number | undefined;
  notes?: string | undefined;
  related_concepts?: string[] | undefined;
}

export interface Curated<T> {
  txId: number;
  reversalHash: string | null;
  result: T;
  /** What the transaction logged (entity images before and after). */
  changes: TxChange[];
}

export interface RestoreResult {
  txId: number;
  revertedTxId: number;
  op: string;
  operatedAt: Date;
  entities: RevertedEntity[];
  vectors: UndoResult['vectors'];
}

export function nodeNotFound(id: string, deleted = false): AppError {
  return new AppError('NODE_NOT_FOUND', deleted ? `Node ${id} is deleted; search_tombstones shows its reversal hash.` : `No node has id ${id}.`, { id, deleted });
}

/** A live node, locked for the rest of the transaction. */
export async function lockLiveNode(tx: Queryable, id: string): Promise<NodeRecord> {
  const [row] = await lockNodesById(tx, [id]);
  if (!row || row.deleted_at !== null) throw nodeNotFound(id, Boolean(row));
  return row;
}

export interface CurationMeta {
  actor: string | null;
  rationale: string | null;
  reason?: string | null;
}

/**
 * One curation transaction: `fn` changes rows through `tx` and logs them; the reversal hash that
 * restore_from_hash accepts is recorded with the transaction (same DB transaction), naming the
 * nodes `fn` returns in `nodeIds`.
 */
export async function curate<T>(
  db: Db,
  op: string,
  meta: CurationMeta,
  fn: (tx: Queryable, log: (c: TxChange) => void) => Promise<{ nodeIds: string[]; result: T }>,
  opts: { reversible?: boolean } = {},
): Promise<Curated<T>> {
  const hash = opts.reversible === false ? null : randomBytes(16).toString('hex');
  let nodeIds: string[] = [];
  const committed = await writeTransaction(
    db,
    op,
    {
      actor: meta.actor,
      rationale: meta.rationale,
      afterRecord: async (tx, txId) => {
        if (hash) await recordReversal(tx, { hash, txId, op, nodeIds, reason: meta.reason ?? null });
      },
    },
    async (tx, log) => {
      const out = await fn(tx, log);
      nodeIds = out.nodeIds;
      return out.result;
    },
  );
  return { txId: committed.txId, reversalHash: committed.txId ? hash : null, result: committed.result, changes: committed.changes };
}

/** Soft-deletes the live edges of nodes and withdraws the nodes' vectors (kept for a restore: db/150), logging each edge. */
export async function tombstoneEdgesAndVectors(tx: Queryable, nodes: readonly NodeRecord[], log: (c: TxChange) => void): Promise<number> {
  const ids = nodes.map((n) => n.id);
  const before = await lockLiveEdgesOfNodes(tx, ids);
  const after = new Map(
    (
      await softDeleteEdges(
        tx,
        before.map((e) => e.id),
      )
    ).map((e) => [e.id, e]),
  );
  for (const e of before) log({ entity: 'edge', entityId: e.id, before: image(e), after: image(after.get(e.id)!) });
  await retractEmbeddings(
    tx,
    nodes.map((n) => n.nid),
  );
  return before.length;
}

/**
 * The librarian's operations on single nodes (seed 001 §3.2): annotate, boost, forget and
 * restore, plus the tombstone listing. Each write is one logged transaction with a reversal hash.
 */
export class CurationService {
  private lastSweep = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly deps: {
      db: Db;
      history: HistoryService;
      clock: Clock;
      logger?: Logger | undefined;
      /** Refuses a boost that would feed semantic cancer (SEMANTIC_CANCER_DETECTED), before anything is written. */
      guard?: { checkBoost(id: string, delta: number): Promise<void> } | undefined;
      /** Told of edges a forget removed (the graph-embed job of their other ends); absent, nothing is queued. */
      embedding?: Partial<Pick<EmbeddingScheduler, 'graphChanged'>> | null | undefined;
      /** This process's vector indexes and their spaces: a purged node's keys are dropped at once. */
      indexes?: Pick<VectorIndexes, 'applyBatch'> | null | undefined;
      spaces?: readonly SpaceId[] | undefined;
    },
  ) {}

  /** One log line per committed curation (get_system_logs, component curation). */
  private logged<T extends { txId: number }>(op: string, ids: readonly string[], done: T): T {
    this.deps.logger?.info({ op, nodes: ids, tx_id: done.txId }, `curation: ${op}`);
    return done;
  }

  now(): Date {
    return this.deps.clock.now();
  }

  /** Adds tags, sets confidence and records domain/notes/related concepts; content and vectors stay as they are. */
  async annotate(id: string, a: Annotations, meta: CurationMeta): Promise<Curated<NodeRecord>> {
    const given = Object.entries(a).filter(([, v]) => v !== undefined);
    if (given.length === 0) {
      throw new AppError('INVALID_PARAMS', 'annotations: give at least one of tags, domain, confidence, notes, related_concepts.', {
        issues: [{ path: 'annotations', message: 'no annotation given', allowed: ['tags', 'domain', 'confidence', 'notes', 'related_concepts'] }],
      });
    }
    const annotated = await curate(this.deps.db, 'annotate', meta, async (tx, log) => {
      const old = await lockLiveNode(tx, id);
      const previous = (old.metadata.annotations ?? {}) as Record<string, unknown>;
      const annotations = {
        ...previous,
        ...(a.domain !== undefined ? { domain: a.domain } : {}),
        ...(a.notes !== undefined ? { notes: a.notes } : {}),
        ...(a.related_concepts !== undefined ? { related_concepts: [...new Set(a.related_concepts)] } : {}),
      };
      const row = await curateNode(tx, id, {
        tags: a.tags ? [...new Set([...old.tags, ...a.tags])] : old.tags,
        confidence: a.confidence ?? old.confidence,
        importance: old.importance,
        metadata: { ...old.metadata, annotations },
      });
      log({ entity: 'node', entityId: id, before: image(old), after: image(row) });
      return { nodeIds: [id], result: row };
    });
    return this.logged('annotate', [id], annotated);
  }

  /** Moves importance by `delta`, clamped to [0, 1]. */
  async boost(id: string, delta: number, meta: CurationMeta): Promise<Curated<{ node: NodeRecord; previous: number; clamped: boolean }>> {
    await this.deps.guard?.checkBoost(id, delta);
    const boosted = await curate(this.deps.db, 'boost', meta, async (tx, log) => {
      const old = await lockLiveNode(tx, id);
      const wanted = old.importance + delta;
      const importance = Math.min(1, Math.max(0, wanted));
      const row = await curateNode(tx, id, { tags: old.tags, confidence: old.confidence, importance, metadata: old.metadata });
      log({ entity: 'node', entityId: id, before: image(old), after: image(row) });
      return { nodeIds: [id], result: { node: row, previous: old.importance, clamped: Math.abs(importance - wanted) > 1e-9 } };
    });
    return this.logged('boost', [id], boosted);
  }

  /**
   * Soft delete (tombstone, restorable for 30 days) or, for reason user_requested only, a purge of
   * the row, its vectors and its edges. A second soft delete is TOMBSTONE_EXISTS.
   */
  async forget(id: string, opts: { soft: boolean; reason: ForgetReason }, meta: CurationMeta): Promise<Curated<{ node: NodeRecord; edges: number; purged: boolean }>> {
    if (!opts.soft && opts.reason !== 'user_requested') {
      throw new AppError('INVALID_PARAMS', `forget_concept: a permanent delete (soft_delete false) needs reason "user_requested", not "${opts.reason}".`, {
        issues: [{ path: 'soft_delete', message: 'hard delete only with reason user_requested', allowed: ['user_requested'] }],
      });
    }
    const fullMeta = { ...meta, reason: opts.reason };
    const forgotten = await curate<{ node: NodeRecord; edges: number; purged: boolean }>(
      this.deps.db,
      opts.soft ? 'forget' : 'purge',
      fullMeta,
      async (tx, log) => {
        const [old] = await lockNodesById(tx, [id]);
        if (!old) throw nodeNotFound(id);
        if (opts.soft) {
          if (old.deleted_at !== null) {
            throw new AppError('TOMBSTONE_EXISTS', `Node ${id} was already soft-deleted at ${old.deleted_at.toISOString()}; restore it with restore_from_hash first.`, {
              id,
              deleted_at: old.deleted_at.toISOString(),
            });
          }
          const row = await tombstoneNode(tx, id, { tombstone: { reason: opts.reason, rationale: meta.rationale } });
          log({ entity: 'node', entityId: id, before: image(old), after: image(row) });
          const edges = await tombstoneEdgesAndVectors(tx, [old], log);
          return { nodeIds: [id], result: { node: row, edges, purged: false } };
        }
        const edges = await purgeNode(tx, id);
        for (const e of edges) log({ entity: 'edge', entityId: e.id, before: image(e), after: null });
        log({ entity: 'node', entityId: id, before: image(old), after: null });
        return { nodeIds: [id], result: { node: old, edges: edges.length, purged: true } };
      },
      { reversible: opts.soft },
    );
    if (opts.soft && this.deps.clock.now().getTime() - this.lastSweep >= SWEEP_EVERY_MS) {
      // Off the answer's path: kept vectors past the window only take space.
      void this.sweepKept().catch((err) => this.deps.logger?.warn({ err }, 'sweep of kept vectors failed'));
    }
    if (forgotten.result.purged && this.deps.indexes) {
      await dropKeysEverywhere(this.deps.indexes, this.deps.spaces ?? [], [forgotten.result.node.nid]).catch((err: unknown) =>
        this.deps.logger?.warn({ err, id }, 'index removal after purge failed'),
      );
    }
    // The forgotten node's neighbours lost an edge: their E8 (graph) vectors move.
    await this.deps.embedding?.graphChanged?.(forgotten.changes);
    return this.logged(opts.soft ? 'forget' : 'purge', [id], forgotten);
  }

  /**
   * Drops the vectors kept for restoring soft-deleted nodes (db/150) once the recovery window
   * is over: restore_from_hash refuses them then. Answers how many vectors went.
   */
  async sweepKept(): Promise<number> {
    const now = this.deps.clock.now().getTime();
    this.lastSweep = now;
    return sweepRetainedEmbeddings(this.deps.db, new Date(now - RECOVERY_WINDOW_MS));
  }

  /**
   * Reverts the curation transaction a reversal hash names: every node and edge it touched goes
   * back to its exact prior image, and restored nodes are re-indexed in every space from the
   * vectors kept when they were deleted (re-embedded only when none were kept).
   */
  async restore(hash: string, meta: CurationMeta): Promise<RestoreResult> {
    const rev = await reversalByHash(this.deps.db, hash);
    if (!rev) throw new AppError('NODE_NOT_FOUND', `No curation operation has the reversal hash ${hash}.`, { reversal_hash: hash });
    const age = this.deps.clock.now().getTime() - rev.created_at.getTime();
    if (age > RECOVERY_WINDOW_MS) {
      throw new AppError(
        'RECOVERY_WINDOW_EXPIRED',
        `The ${rev.op} of ${rev.node_ids.join(', ')} happened at ${rev.created_at.toISOString()}, more than ${RECOVERY_WINDOW_DAYS} days ago; it can no longer be restored.`,
        { reversal_hash: hash, deleted_at: rev.created_at.toISOString(), op: rev.op, node_ids: rev.node_ids, window_days: RECOVERY_WINDOW_DAYS },
      );
    }
    if (rev.reverted_by !== null) {
      throw new AppError('CONFLICT', `The ${rev.op} with this hash was already reverted by transaction ${rev.reverted_by}.`, {
        reversal_hash: hash,
        reverted_by: rev.reverted_by,
      });
    }
    // Restored nodes get their kept vectors back (the indexes take them before this answers); a
    // node deleted while it still owed vectors is re-embedded instead, keyword vectors first, and
    // its dense vectors land through the job (waiting for them cost most of a restore, NFR-001).
    const undone = await this.deps.history.undo({ txId: rev.tx_id, rationale: meta.rationale ?? `restore_from_hash ${hash}` }, meta.actor, false);
    const { txId, entities, vectors } = undone;
    return this.logged('restore', rev.node_ids, { txId, revertedTxId: rev.tx_id, op: rev.op, operatedAt: rev.created_at, entities, vectors });
  }

  /** Soft-deleted nodes still inside the recovery window. */
  async tombstones(f: { query?: string | undefined; deletedAfter?: Date | undefined; limit: number }): Promise<{ items: TombstoneRow[]; windowStart: Date }> {
    const windowStart = new Date(this.deps.clock.now().getTime() - RECOVERY_WINDOW_MS);
    const items = await tombstones(this.deps.db, { since: windowStart, deletedAfter: f.deletedAfter ?? null, query: f.query ?? null, limit: f.limit });
    return { items, windowStart };
  }

  /** A live node by id (hydrate_citation); NODE_NOT_FOUND for unknown or deleted ids. */
  async liveNode(id: string): Promise<NodeRecord> {
    const row = await nodeById(this.deps.db, id);
    if (!row || row.deleted_at !== null) throw nodeNotFound(id, Boolean(row));
    return row;
  }
}
