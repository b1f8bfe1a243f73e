import { createHash } from 'node:crypto';
import { newId } from '../ids.js';
import type { Db, Queryable } from '../store/db.js';
import type { NewNode } from '../store/nodes-repo.js';
import { advisoryXactLock, LOCKS, notify } from '../store/locks.js';
import { recordTransaction, type TxChange } from '../store/tx-log.js';
import { claimInTransaction } from './idempotency.js';

/** Channel every committed transaction is announced on; the payload is its tx_id. */
export const TX_CHANNEL = 'cg_tx';

export interface WriteMeta {
  actor?: string | null;
  rationale?: string | null;
  /** Runs inside the same DB transaction once its tx_id exists (undo marks what it reverted). */
  afterRecord?: (tx: Queryable, txId: number) => Promise<void>;
}

export interface Committed<T> {
  txId: number;
  result: T;
  changes: TxChange[];
}

/**
 * The one way to mutate: `fn` makes its changes through `tx` and reports each entity it touched
 * with `log(change)` (before/after images). Rows, the transaction record and the announcement
 * commit together or not at all; a transaction that logged no change records nothing.
 */
export async function writeTransaction<T>(db: Db, op: string, meta: WriteMeta, fn: (tx: Queryable, log: (change: TxChange) => void) => Promise<T>): Promise<Committed<T>> {
  let keyRecorded: (() => void) | null = null;
  const committed = await db.transaction(async (tx) => {
    const changes: TxChange[] = [];
    const result = await fn(tx, (change) => changes.push(change));
    if (changes.length === 0) return { txId: 0, result, changes };
    // tx_ids must commit in order: readers of the log (change feed, history cursors) advance
    // past an id once they have seen it, and would skip one that committed later.
    await advisoryXactLock(tx, LOCKS.txOrder);
    const txId = await recordTransaction(tx, op, changes, meta);
    await meta.afterRecord?.(tx, txId);
    // The idempotency key of the tool call this write belongs to commits with it (services/idempotency.ts).
    keyRecorded = await claimInTransaction(tx, txId, changes[0]?.entityId ?? null);
    // NOTIFY is delivered on commit only, so listeners never hear of a rolled-back write.
    await notify(tx, TX_CHANNEL, String(txId));
    return { txId, result, changes };
  });
  (keyRecorded as (() => void) | null)?.();
  return committed;
}

/** An entity image as stored in tx_changes: JSON-safe (dates become ISO strings). */
export function image<T>(row: T): T {
  return JSON.parse(JSON.stringify(row)) as T;
}

/** Hash of the content as a reader sees it: case and white space do not make a new fact. */
export function contentHash(content: string): string {
  return createHash('sha256').update(content.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase()).digest('hex');
}

/** A node to insert, with the defaults every writer shares (importance 0.5, confidence 1, open validity). */
export function newNode(fields: Pick<NewNode, 'kind' | 'project_id' | 'content'> & Partial<NewNode>): NewNode {
  return {
    id: fields.id ?? newId(),
    memory_type: 'semantic',
    topic: null,
    tags: [],
    source_uri: null,
    importance: 0.5,
    confidence: 1,
    metadata: {},
    content_hash: fields.content_hash ?? contentHash(fields.content),
    valid_from: null,
    valid_to: null,
    ...fields,
  };
}
