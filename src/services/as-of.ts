import { AppError } from '../errors.js';
import type { Queryable } from '../store/db.js';
import { decodeImage } from '../store/history-repo.js';
import { imagesAsOf, latestTxId, type ImageAsOf } from '../store/tx-log.js';

/**
 * The tx id a read reflects: `asOfTxId` when given (it must exist), else the newest one.
 * Throws INVALID_PARAMS for a tx id beyond the newest.
 */
export async function resolveAsOf(q: Queryable, asOfTxId: number | null | undefined): Promise<number> {
  const latest = await latestTxId(q);
  if (asOfTxId === undefined || asOfTxId === null) return latest;
  if (!Number.isSafeInteger(asOfTxId) || asOfTxId < 0 || asOfTxId > latest) {
    throw new AppError('INVALID_PARAMS', `as_of_tx_id: ${asOfTxId} is beyond the newest transaction (${latest}).`, {
      issues: [{ path: 'as_of_tx_id', message: `must be between 0 and ${latest}`, minimum: 0, maximum: latest }],
    });
  }
  return asOfTxId;
}

export interface EntryAsOf {
  id: string;
  /** The transaction that last changed the entry at or before the as-of point. */
  tx_id: number;
  entry: Record<string, unknown>;
}

function asOfRows(rows: ImageAsOf[], opts: { includeDeleted?: boolean }): EntryAsOf[] {
  const out: EntryAsOf[] = [];
  for (const r of rows) {
    const entry = decodeImage(r.image);
    if (!entry) continue;
    if (!opts.includeDeleted && entry.deleted_at !== null && entry.deleted_at !== undefined) continue;
    out.push({ id: r.entity_id, tx_id: r.tx_id, entry });
  }
  return out;
}

/**
 * Entries (node images) as they were right after transaction `asOfTxId`, in id order. Entries
 * absent then (not yet created, un-created, or deleted unless `includeDeleted`) are left out.
 */
export async function entriesAsOf(q: Queryable, asOfTxId: number, ids: readonly string[], opts: { includeDeleted?: boolean } = {}): Promise<EntryAsOf[]> {
  if (ids.length === 0) return [];
  return asOfRows(await imagesAsOf(q, 'node', asOfTxId, { ids, limit: ids.length, includeDeleted: opts.includeDeleted ?? false }), opts);
}

/** Edge images as of `asOfTxId` (same rules as entriesAsOf). */
export async function triplesAsOf(q: Queryable, asOfTxId: number, ids: readonly string[], opts: { includeDeleted?: boolean } = {}): Promise<EntryAsOf[]> {
  if (ids.length === 0) return [];
  return asOfRows(await imagesAsOf(q, 'edge', asOfTxId, { ids, limit: ids.length, includeDeleted: opts.includeDeleted ?? false }), opts);
}
