import type { Queryable } from './db.js';
import { EDGE_COLUMNS, type EdgeRecord } from './edges-repo.js';
import { fromBytes } from './vector-bytes.js';
import { NODE_COLUMNS, type NodeRecord } from './nodes-repo.js';
import { asReal } from './real.js';

/** SQL behind curation (annotate, boost, forget, merge, restore), tombstones and lineage. */

export interface ReversalRow {
  hash: string;
  tx_id: number;
  op: string;
  node_ids: string[];
  reason: string | null;
  created_at: Date;
  reverted_by: number | null;
}

export async function recordReversal(q: Queryable, r: { hash: string; txId: number; op: string; nodeIds: readonly string[]; reason: string | null }): Promise<void> {
  await q.query(`insert into reversals (hash, tx_id, op, node_ids, reason) select $1, $2, $3, $4::text[], $5 from transactions where tx_id = $2`, [
    r.hash,
    r.txId,
    r.op,
    r.nodeIds,
    r.reason,
  ]);
}

/** A reversal and whether its transaction was reverted since (by undo or an earlier restore). */
export async function reversalByHash(q: Queryable, hash: string): Promise<ReversalRow | null> {
  const [row] = await q.query<ReversalRow & Record<string, unknown>>(
    `select r.hash, r.tx_id, r.op, r.node_ids, r.reason, t.created_at, t.reverted_by
       from reversals r join transactions t on t.tx_id = r.tx_id where r.hash = $1`,
    [hash],
  );
  return row ?? null;
}

/** Replaces a node's curated fields (never content or topic, so its vectors stay valid). */
export async function curateNode(q: Queryable, id: string, f: Pick<NodeRecord, 'tags' | 'confidence' | 'importance' | 'metadata'>): Promise<NodeRecord> {
  const [row] = await q.query<NodeRecord & Record<string, unknown>>(
    `update nodes set tags = $2::text[], confidence = $3, importance = $4, metadata = $5::jsonb, version = version + 1, updated_at = now()
      where id = $1 returning ${NODE_COLUMNS}`,
    [id, f.tags, asReal(f.confidence, 'nodes.confidence'), asReal(f.importance, 'nodes.importance'), JSON.stringify(f.metadata)],
  );
  return row!;
}

/** Soft-deletes a node, recording why in its metadata (the tombstone). */
export async function tombstoneNode(q: Queryable, id: string, tombstone: Record<string, unknown>): Promise<NodeRecord> {
  const [row] = await q.query<NodeRecord & Record<string, unknown>>(
    `update nodes set deleted_at = now(), updated_at = now(), version = version + 1, metadata = metadata || $2::jsonb
      where id = $1 returning ${NODE_COLUMNS}`,
    [id, JSON.stringify(tombstone)],
  );
  return row!;
}

/** Soft-deletes nodes with the same tombstone (a merge's sources), in one statement. */
export async function tombstoneNodes(q: Queryable, ids: readonly string[], tombstone: Record<string, unknown>): Promise<NodeRecord[]> {
  return q.query<NodeRecord & Record<string, unknown>>(
    `update nodes set deleted_at = now(), updated_at = now(), version = version + 1, metadata = metadata || $2::jsonb
      where id = any($1::text[]) returning ${NODE_COLUMNS}`,
    [ids, JSON.stringify(tombstone)],
  );
}

/** Removes a node, its vectors and every edge touching it for good (forget with soft_delete false). */
export async function purgeNode(q: Queryable, id: string): Promise<EdgeRecord[]> {
  const edges = await q.query<EdgeRecord & Record<string, unknown>>(`delete from edges where src = $1 or dst = $1 returning ${EDGE_COLUMNS}`, [id]);
  await q.query(`delete from embeddings where node_nid in (select nid from nodes where id = $1)`, [id]);
  await q.query(`delete from nodes where id = $1`, [id]);
  return edges;
}

/** Points the given edges' ends that are in `fromIds` at `toId`. */
export async function repointEdges(q: Queryable, edgeIds: readonly string[], fromIds: readonly string[], toId: string): Promise<EdgeRecord[]> {
  if (edgeIds.length === 0) return [];
  return q.query<EdgeRecord & Record<string, unknown>>(
    `update edges set src = case when src = any($2::text[]) then $3 else src end,
                      dst = case when dst = any($2::text[]) then $3 else dst end
      where id = any($1::text[]) returning ${EDGE_COLUMNS}`,
    [edgeIds, fromIds, toId],
  );
}

/** Stored vectors of one space for nodes, by nid (removed vectors are absent). */
export async function vectorsOf(q: Queryable, nids: readonly number[], space: string): Promise<Map<number, Float32Array>> {
  if (nids.length === 0) return new Map();
  const rows = await q.query<{ node_nid: number; dim: number; vector: Uint8Array }>(
    `select node_nid, dim, vector from embeddings where node_nid = any($1::bigint[]) and space = $2 and vector is not null`,
    [nids, space],
  );
  return new Map(rows.map((r) => [Number(r.node_nid), fromBytes(r.vector, r.dim)]));
}

/** Query words for a contains-all match; LIKE wildcards in them match literally. */
function words(query: string): string[] {
  return query
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => w.replace(/[\\%_]/g, (c) => `\\${c}`));
}

export interface TombstoneRow {
  node: NodeRecord;
  reversal_hash: string | null;
  reason: string | null;
}

/**
 * Soft-deleted nodes (whose topic or content holds every word of `query`) deleted at or after `since` (the window start) and `deletedAfter`, newest
 * first, with the newest unreverted reversal hash that brings each back.
 */
export async function tombstones(q: Queryable, f: { since: Date; deletedAfter: Date | null; query: string | null; limit: number }): Promise<TombstoneRow[]> {
  const rows = await q.query<NodeRecord & { reversal_hash: string | null; reason: string | null } & Record<string, unknown>>(
    `select ${NODE_COLUMNS.split(',')
      .map((c) => `n.${c.trim()}`)
      .join(', ')}, r.hash as reversal_hash, r.reason
       from nodes n
       left join lateral (
         -- Each candidate's transaction by its key (a join planned a scan of transactions per row).
         select rv.hash, rv.reason from reversals rv
          where rv.node_ids @> array[n.id]
            and not exists (select 1 from transactions t where t.tx_id = rv.tx_id and t.reverted_by is not null)
          order by rv.tx_id desc limit 1
       ) r on true
      where n.deleted_at is not null and n.deleted_at >= $1
        and ($2::timestamptz is null or n.deleted_at >= $2)
        and ($3::text[] is null or (select bool_and(coalesce(n.topic, '') || ' ' || n.content ilike '%' || w || '%') from unnest($3::text[]) w))
      order by n.deleted_at desc, n.id
      limit $4`,
    [f.since, f.deletedAfter, f.query ? words(f.query) : null, f.limit],
  );
  return rows.map(({ reversal_hash, reason, ...node }) => ({ node: node, reversal_hash, reason }));
}

export interface LineageRow {
  tx_id: number;
  op: string;
  actor: string | null;
  rationale: string | null;
  created_at: Date;
  reverted_by: number | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  reversal_hash: string | null;
}

/** Every logged change of one node, oldest first, with its transaction and reversal hash. */
export async function nodeChanges(q: Queryable, id: string, limit: number): Promise<LineageRow[]> {
  return q.query<LineageRow & Record<string, unknown>>(
    `select t.tx_id, t.op, t.actor, t.rationale, t.created_at, t.reverted_by, c.before, c.after,
            (select hash from reversals r where r.tx_id = t.tx_id limit 1) as reversal_hash
       from tx_changes c join transactions t on t.tx_id = c.tx_id
      where c.entity = 'node' and c.entity_id = $1
      order by c.tx_id, c.ord
      limit $2`,
    [id, limit],
  );
}
