import type { Queryable } from './db.js';
import type { LoggedEntity } from './tx-log.js';
import { EDGE_COLUMNS, type EdgeRecord } from './edges-repo.js';
import { NODE_COLUMNS, type NodeRecord } from './nodes-repo.js';

/** SQL behind history, undo/redo and as-of reads: the transaction log and entity restores. */

export type EntityKind = LoggedEntity;

export interface TxRow {
  tx_id: number;
  op: string;
  actor: string | null;
  rationale: string | null;
  reverted_by: number | null;
  created_at: Date;
}

export interface TxChangeRow {
  tx_id: number;
  ord: number;
  entity: string;
  entity_id: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/** Node columns a restore writes back from an image (nid is the identity). */
const NODE_RESTORE_COLUMNS = [
  'id',
  'kind',
  'project_id',
  'memory_type',
  'topic',
  'content',
  'tags',
  'source_uri',
  'importance',
  'confidence',
  'metadata',
  'content_hash',
  'valid_from',
  'valid_to',
  'created_at',
  'updated_at',
  'deleted_at',
  'version',
  'collection',
] as const;
const EDGE_RESTORE_COLUMNS = ['id', 'src', 'dst', 'edge_type', 'predicate', 'weight', 'confidence', 'metadata', 'valid_from', 'valid_to', 'created_at', 'deleted_at'] as const;

export async function txById(q: Queryable, txId: number, forUpdate = false): Promise<TxRow | null> {
  const [row] = await q.query<TxRow & Record<string, unknown>>(
    `select tx_id, op, actor, rationale, reverted_by, created_at from transactions where tx_id = $1${forUpdate ? ' for update' : ''}`,
    [txId],
  );
  return row ?? null;
}

/**
 * The newest `limit` transactions that are not reverted yet: with `undoOps` the undo/redo stack
 * of reverts (op = 'undo'), without it every other op (the undo stack). Rows are locked.
 */
export async function unrevertedTxs(q: Queryable, limit: number, kind: 'undo-stack' | 'redo-stack', actor: string | null = null): Promise<TxRow[]> {
  return q.query<TxRow & Record<string, unknown>>(
    `select tx_id, op, actor, rationale, reverted_by, created_at from transactions
      where reverted_by is null and ${kind === 'redo-stack' ? `op = 'undo'` : `op <> 'undo'`} ${actor === null ? '' : 'and actor = $2'}
      order by tx_id desc limit $1 for update`,
    actor === null ? [limit] : [limit, actor],
  );
}

/** An image as read back from tx_changes: an object, or null for "absent". */
export function decodeImage(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

function decodeRows(rows: TxChangeRow[]): TxChangeRow[] {
  for (const r of rows) {
    r.before = decodeImage(r.before);
    r.after = decodeImage(r.after);
  }
  return rows;
}

export async function changesOfTxs(q: Queryable, txIds: readonly number[]): Promise<TxChangeRow[]> {
  if (txIds.length === 0) return [];
  return decodeRows(
    await q.query<TxChangeRow & Record<string, unknown>>(
      `select tx_id, ord, entity, entity_id, before, after from tx_changes
      where tx_id = any($1::bigint[]) order by tx_id, ord`,
      [txIds],
    ),
  );
}

/** Every logged change to the given entities at or after `fromTxId`, oldest first. */
export async function entityChangesSince(q: Queryable, entities: ReadonlyArray<{ entity: string; entityId: string }>, fromTxId: number): Promise<TxChangeRow[]> {
  if (entities.length === 0) return [];
  return decodeRows(
    await q.query<TxChangeRow & Record<string, unknown>>(
      `select c.tx_id, c.ord, c.entity, c.entity_id, c.before, c.after
       from tx_changes c
       join unnest($1::text[], $2::text[]) as e(entity, entity_id) on c.entity = e.entity and c.entity_id = e.entity_id
      where c.tx_id >= $3
      order by c.entity, c.entity_id, c.tx_id, c.ord`,
      [entities.map((e) => e.entity), entities.map((e) => e.entityId), fromTxId],
    ),
  );
}

export async function markReverted(q: Queryable, txIds: readonly number[], revertedBy: number): Promise<void> {
  await q.query(`update transactions set reverted_by = $1 where tx_id = any($2::bigint[])`, [revertedBy, txIds]);
}

/** The transactions a revert transaction reverted. */
export async function revertedBy(q: Queryable, txIds: readonly number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  if (txIds.length === 0) return out;
  const rows = await q.query<{ tx_id: number; reverted_by: number }>(`select tx_id, reverted_by from transactions where reverted_by = any($1::bigint[]) order by tx_id`, [txIds]);
  for (const r of rows) {
    const list = out.get(r.reverted_by) ?? [];
    list.push(r.tx_id);
    out.set(r.reverted_by, list);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Rows, locked, and restores from images

export async function nodesByIdForUpdate(q: Queryable, ids: readonly string[]): Promise<NodeRecord[]> {
  if (ids.length === 0) return [];
  return q.query<NodeRecord & Record<string, unknown>>(`select ${NODE_COLUMNS} from nodes where id = any($1::text[]) order by id for update`, [ids]);
}

export async function edgesByIdForUpdate(q: Queryable, ids: readonly string[]): Promise<EdgeRecord[]> {
  if (ids.length === 0) return [];
  return q.query<EdgeRecord & Record<string, unknown>>(`select ${EDGE_COLUMNS} from edges where id = any($1::text[]) order by id for update`, [ids]);
}

function presentColumns(image: Record<string, unknown>, columns: readonly string[]): string[] {
  return columns.filter((c) => Object.prototype.hasOwnProperty.call(image, c));
}

/**
 * Writes a node back to an image. An existing row is updated in place (columns the image has);
 * a missing one is inserted with the image's nid, so vectors and index keys stay valid.
 */
export async function restoreNode(q: Queryable, image: Record<string, unknown>, exists: boolean): Promise<NodeRecord> {
  const cols = presentColumns(image, NODE_RESTORE_COLUMNS).filter((c) => c !== 'id');
  const json = JSON.stringify(image);
  if (exists) {
    const [row] = await q.query<NodeRecord & Record<string, unknown>>(
      `update nodes n set (${cols.join(', ')}) = (select ${cols.map((c) => `r.${c}`).join(', ')} from jsonb_populate_record(null::nodes, $1::jsonb) r)
        where n.id = $2 returning ${NODE_COLUMNS.split(',')
          .map((c) => `n.${c.trim()}`)
          .join(', ')}`,
      [json, image.id],
    );
    return row!;
  }
  const insertCols = ['id', ...cols, ...(image.nid !== undefined && image.nid !== null ? ['nid'] : [])];
  const [row] = await q.query<NodeRecord & Record<string, unknown>>(
    `insert into nodes (${insertCols.join(', ')}) overriding system value
     select ${insertCols.map((c) => `r.${c}`).join(', ')} from jsonb_populate_record(null::nodes, $1::jsonb) r
     returning ${NODE_COLUMNS}`,
    [json],
  );
  return row!;
}

/** Removes a node row that an undo un-creates; its embedding rows go first (they reference it). */
export async function hardDeleteNode(q: Queryable, id: string): Promise<void> {
  await q.query(`delete from embeddings where node_nid in (select nid from nodes where id = $1)`, [id]);
  await q.query(`delete from nodes where id = $1`, [id]);
}

export async function restoreEdge(q: Queryable, image: Record<string, unknown>): Promise<EdgeRecord> {
  const cols = presentColumns(image, EDGE_RESTORE_COLUMNS);
  const updates = cols.filter((c) => c !== 'id');
  const [row] = await q.query<EdgeRecord & Record<string, unknown>>(
    `insert into edges (${cols.join(', ')})
     select ${cols.map((c) => `r.${c}`).join(', ')} from jsonb_populate_record(null::edges, $1::jsonb) r
     on conflict (id) do update set ${updates.map((c) => `${c} = excluded.${c}`).join(', ')}
     returning ${EDGE_COLUMNS}`,
    [JSON.stringify(image)],
  );
  return row!;
}

export async function hardDeleteEdge(q: Queryable, id: string): Promise<void> {
  await q.query(`delete from edges where id = $1`, [id]);
}

// ---------------------------------------------------------------------------------------------
// History listing

export interface HistoryFilter {
  entityId?: string | null | undefined;
  op?: string | null | undefined;
  since?: Date | null | undefined;
  until?: Date | null | undefined;
  /** Keyset: only transactions with tx_id below this one. */
  beforeTxId?: number | null | undefined;
  /** Only transactions at or below this one (the page's snapshot). */
  maxTxId?: number | null | undefined;
  limit: number;
}

export async function listTransactions(q: Queryable, f: HistoryFilter): Promise<TxRow[]> {
  return q.query<TxRow & Record<string, unknown>>(
    `select t.tx_id, t.op, t.actor, t.rationale, t.reverted_by, t.created_at
       from transactions t
      where ($1::bigint is null or t.tx_id < $1)
        and ($2::bigint is null or t.tx_id <= $2)
        and ($3::text is null or t.op = $3)
        and ($4::timestamptz is null or t.created_at >= $4)
        and ($5::timestamptz is null or t.created_at <= $5)
        and ($6::text is null or exists (select 1 from tx_changes c where c.tx_id = t.tx_id and c.entity_id = $6))
      order by t.tx_id desc
      limit $7`,
    [f.beforeTxId ?? null, f.maxTxId ?? null, f.op ?? null, f.since ?? null, f.until ?? null, f.entityId ?? null, f.limit],
  );
}

/** A jsonb image as an object, also when it was stored as JSON text in a jsonb string. */
const OBJ = (col: string) => `(case when jsonb_typeof(${col}) = 'string' then (${col} #>> '{}')::jsonb else ${col} end)`;

/** Change summaries of transactions: at most `perTx` per transaction, plus each one's total. */
export async function changeSummaries(
  q: Queryable,
  txIds: readonly number[],
  perTx: number,
): Promise<{ rows: Array<{ tx_id: number; entity: string; entity_id: string; before_state: string; after_state: string }>; totals: Map<number, number> }> {
  if (txIds.length === 0) return { rows: [], totals: new Map() };
  const rows = await q.query<{ tx_id: number; entity: string; entity_id: string; before_state: string; after_state: string; total: number }>(
    `select tx_id, entity, entity_id, before_state, after_state, total from (
       select tx_id, ord, entity, entity_id,
              case when before is null then 'absent' when ${OBJ('before')}->>'deleted_at' is not null then 'deleted' else 'live' end as before_state,
              case when after is null then 'absent' when ${OBJ('after')}->>'deleted_at' is not null then 'deleted' else 'live' end as after_state,
              row_number() over (partition by tx_id order by ord) as rn,
              count(*) over (partition by tx_id) as total
         from tx_changes where tx_id = any($1::bigint[])
     ) s where rn <= $2 order by tx_id desc, ord`,
    [txIds, perTx],
  );
  const totals = new Map<number, number>();
  for (const r of rows) totals.set(r.tx_id, r.total);
  return { rows, totals };
}
