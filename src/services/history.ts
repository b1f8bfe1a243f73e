import { AppError } from '../errors.js';
import type { SpaceId } from '../embed/types.js';
import { dropKeysEverywhere, type VectorIndexes } from '../index/vector-index.js';
import type { Logger } from '../log.js';
import type { Db, Queryable } from '../store/db.js';
import { changeSummaries, listTransactions, markReverted, revertedBy, txById, unrevertedTxs, type TxRow } from '../store/history-repo.js';
import { advisoryXactLock, LOCKS } from '../store/locks.js';
import type { NodeRecord } from '../store/nodes-repo.js';
import { latestTxId, type LoggedEntity } from '../store/tx-log.js';
import type { EmbeddingScheduler } from './embedding-scheduler.js';
import { revertTransactions } from './history-revert.js';
import { changeTypeOf, type ChangeType } from './images.js';
import { writeTransaction } from './writes.js';

/**
 * Undo / redo model (also in the `undo` tool's description):
 *
 * - Every mutation is one transaction. `reverted_by` on a transaction names the transaction that
 *   reverted it.
 * - The undo stack is the transactions with reverted_by null whose op is not 'undo' (so it
 *   includes 'redo' transactions). `undo({steps: N})` reverts the newest N of them in ONE new
 *   transaction with op 'undo'.
 * - The redo stack is the 'undo' transactions with reverted_by null. `undo({redo: true, steps: N})`
 *   reverts the newest N of them — re-applying what they undid — in one transaction with op 'redo'.
 *   A redo is an ordinary transaction again, so a later `undo` undoes it.
 * - `undo({tx_id})` reverts exactly that transaction: an 'undo' transaction is redone (op 'redo'),
 *   anything else is undone (op 'undo'). A transaction already reverted is a CONFLICT.
 * - A revert restores every entity the reverted transactions touched to the image it had before
 *   the oldest of them. It is refused (CONFLICT naming the later transaction, nothing changed)
 *   when a transaction outside the set changed such an entity afterwards and that change is still
 *   in effect; changes that were themselves reverted since do not count.
 */
export type UndoRequest = {
  steps?: number | undefined;
  redo?: boolean | undefined;
  txId?: number | undefined;
  rationale?: string | null | undefined;
  /** Only this actor's transactions are on the stacks (a session undoes its own writes); null: everyone's. */
  onlyActor?: string | null | undefined;
};

export interface RevertedEntity {
  entity: LoggedEntity;
  entity_id: string;
  change_type: ChangeType;
}

export interface UndoResult {
  txId: number;
  op: 'undo' | 'redo';
  revertedTxIds: number[];
  entities: RevertedEntity[];
  /** Restored nodes: all vectors indexed / keyword vectors written (with `wait` false, undo answers before the dense ones land). */
  vectors: { searchable: boolean; keywordSearchable: boolean };
}

/** How an entity changed in a transaction, seen by a reader. */
export type { ChangeType };

export interface HistoryItem {
  tx_id: number;
  op: string;
  actor: string | null;
  rationale: string | null;
  created_at: string;
  reverted_by: number | null;
  /** For undo/redo transactions: the transactions they reverted. */
  reverts: number[];
  changes: Array<{ entity: string; entity_id: string; change_type: ChangeType }>;
  changes_total: number;
}

export interface HistoryPage {
  items: HistoryItem[];
  next_cursor: string | null;
  /** The newest transaction the listing reflects (pinned across pages). */
  as_of_tx_id: number;
}

export interface HistoryQuery {
  entityId?: string | undefined;
  op?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
  limit: number;
  cursor?: string | undefined;
}

const MAX_CHANGES_PER_ITEM = 50;

function encodeCursor(c: { b: number; m: number }): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

function decodeCursor(s: string): { b: number; m: number } {
  try {
    const c = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as { b?: unknown; m?: unknown };
    if (Number.isSafeInteger(c.b) && Number.isSafeInteger(c.m)) return { b: c.b as number, m: c.m as number };
  } catch {
    // fall through
  }
  throw new AppError('INVALID_PARAMS', 'cursor: not a cursor from a previous history page', { issues: [{ path: 'cursor', message: 'invalid cursor' }] });
}

export interface HistoryDeps {
  db: Db;
  /** `refresh` and `activeModels` let a restore put kept vectors back (db/150) instead of re-embedding; `graphChanged` moves E8 after edge changes. */
  embedding?: (Pick<EmbeddingScheduler, 'schedule'> & Partial<Pick<EmbeddingScheduler, 'refresh' | 'activeModels' | 'graphChanged'>>) | null;
  /** This process's vector indexes: keys of nodes an undo removes are dropped at once. */
  indexes?: Pick<VectorIndexes, 'applyBatch'> | null;
  spaces?: readonly SpaceId[];
  logger?: Logger | null;
}

export class HistoryService {
  constructor(private readonly deps: HistoryDeps) {}

  /** Reverts transactions atomically; see the model at the top of this file. */
  async undo(req: UndoRequest, actor: string | null = null, wait = true): Promise<UndoResult> {
    const { db } = this.deps;
    let targets: number[] = [];
    let op: 'undo' | 'redo' = req.redo ? 'redo' : 'undo';
    if (req.txId !== undefined) {
      // Reverting an undo re-applies what it undid: that is a redo. (A transaction's op never changes.)
      const row = await txById(db, req.txId);
      if (!row) throw new AppError('NODE_NOT_FOUND', `Transaction ${req.txId} does not exist.`, { tx_id: req.txId });
      op = row.op === 'undo' ? 'redo' : 'undo';
    }
    const toEmbed: NodeRecord[] = [];
    const removedNids: number[] = [];
    const reused: number[] = [];
    const afterRecord = (tx: Queryable, txId: number) => markReverted(tx, targets, txId);
    const committed = await writeTransaction(db, op, { actor, rationale: req.rationale ?? null, afterRecord }, async (tx, log) => {
      // One revert at a time: two concurrent undos must not pick the same transactions.
      await advisoryXactLock(tx, LOCKS.undo);
      let picked: TxRow[];
      if (req.txId !== undefined) {
        const row = await txById(tx, req.txId, true);
        if (!row) throw new AppError('NODE_NOT_FOUND', `Transaction ${req.txId} does not exist.`, { tx_id: req.txId });
        if (row.reverted_by !== null) {
          throw new AppError('CONFLICT', `Transaction ${req.txId} was already reverted by transaction ${row.reverted_by}; undo that one to bring it back.`, {
            tx_id: req.txId,
            reverted_by: row.reverted_by,
          });
        }
        picked = [row];
      } else {
        picked = await unrevertedTxs(tx, req.steps ?? 1, req.redo ? 'redo-stack' : 'undo-stack', req.onlyActor ?? null);
        if (picked.length === 0) {
          const whose = req.onlyActor ? ' of this session' : '';
          throw new AppError(
            'CONFLICT',
            req.redo ? `Nothing to redo: no undo${whose} is waiting to be re-applied.` : `Nothing to undo: every transaction${whose} is already reverted.`,
            {
              ...(req.onlyActor ? { scope: 'session' } : {}),
            },
          );
        }
      }
      targets = picked.map((t) => t.tx_id).sort((a, b) => a - b);
      return revertTransactions(tx, targets, log, { toEmbed, removedNids, reused, activeModels: this.deps.embedding?.activeModels?.() ?? new Map() });
    });
    // Kept vectors are back in the feed: this process's indexes take them before the answer.
    const refreshed = reused.length > 0 ? ((await this.deps.embedding?.refresh?.()) ?? false) : true;
    const embedded = toEmbed.length > 0 && this.deps.embedding ? await this.deps.embedding.schedule(toEmbed, { wait }) : null;
    // Edges the revert deleted or brought back move their ends' E8 vectors; restored nodes are
    // re-embedded above, and the embed job recomputes their neighbourhood itself.
    await this.deps.embedding?.graphChanged?.(committed.changes, new Set(toEmbed.map((n) => n.id)));
    if (this.deps.indexes) {
      await dropKeysEverywhere(this.deps.indexes, this.deps.spaces ?? [], removedNids).catch((err: unknown) => this.deps.logger?.warn({ err }, 'index removal after undo failed'));
    }
    const vectors = { searchable: refreshed && (embedded?.searchable ?? true), keywordSearchable: refreshed && (embedded?.keywordSearchable ?? true) };
    return { txId: committed.txId, op, revertedTxIds: targets, entities: committed.result, vectors };
  }

  /** Pages through transactions, newest first; the cursor is a keyset on tx_id, stable under writes. */
  async list(q: HistoryQuery): Promise<HistoryPage> {
    const { db } = this.deps;
    const cursor = q.cursor ? decodeCursor(q.cursor) : null;
    const asOf = cursor ? cursor.m : await latestTxId(db);
    const rows = await listTransactions(db, {
      entityId: q.entityId ?? null,
      op: q.op ?? null,
      since: q.since ?? null,
      until: q.until ?? null,
      beforeTxId: cursor?.b ?? null,
      maxTxId: asOf,
      limit: q.limit + 1,
    });
    const page = rows.slice(0, q.limit);
    const ids = page.map((r) => r.tx_id);
    const [{ rows: summaries, totals }, reverts] = await Promise.all([changeSummaries(db, ids, MAX_CHANGES_PER_ITEM), revertedBy(db, ids)]);
    const changes = new Map<number, HistoryItem['changes']>();
    for (const s of summaries) {
      const list = changes.get(s.tx_id) ?? [];
      list.push({
        entity: s.entity,
        entity_id: s.entity_id,
        change_type: changeTypeOf(s.before_state as 'absent', s.after_state as 'absent'),
      });
      changes.set(s.tx_id, list);
    }
    return {
      items: page.map((r) => ({
        tx_id: r.tx_id,
        op: r.op,
        actor: r.actor,
        rationale: r.rationale,
        created_at: r.created_at.toISOString(),
        reverted_by: r.reverted_by,
        reverts: reverts.get(r.tx_id) ?? [],
        changes: changes.get(r.tx_id) ?? [],
        changes_total: totals.get(r.tx_id) ?? 0,
      })),
      next_cursor: rows.length > q.limit && page.length > 0 ? encodeCursor({ b: page[page.length - 1]!.tx_id, m: asOf }) : null,
      as_of_tx_id: asOf,
    };
  }
}
