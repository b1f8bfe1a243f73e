import type { Queryable } from './db.js';
import { NODE_COLUMNS, type NodeRecord } from './nodes-repo.js';

/**
 * Reads behind the meta-cognitive tools (seed 001 §3.4): the store's shape (counts, duplicate
 * groups, entity names) and the memories a critique or a plan looks at. Read-only.
 */

type Row = NodeRecord & Record<string, unknown>;

/** The `limit` most recently stored live memories (entities excluded), newest first. */
export async function latestMemories(q: Queryable, projectId: string | null, limit: number): Promise<NodeRecord[]> {
  return q.query<Row>(
    `select ${NODE_COLUMNS} from nodes
      where deleted_at is null and kind <> 'entity' and ($1::text is null or project_id = $1)
      order by nid desc limit $2`,
    [projectId, limit],
  );
}

/** Live memories (not `excludeNids`) sharing one of these topics (case-insensitive) within their project. */
export async function memoriesWithTopics(
  q: Queryable,
  pairs: ReadonlyArray<{ projectId: string; topic: string }>,
  excludeNids: readonly number[],
  limit: number,
): Promise<NodeRecord[]> {
  if (pairs.length === 0) return [];
  return q.query<Row>(
    `select ${NODE_COLUMNS} from nodes n
      where n.deleted_at is null and n.kind <> 'entity' and not (n.nid = any($3::bigint[]))
        and exists (select 1 from unnest($1::text[], $2::text[]) as p(project_id, topic) where p.project_id = n.project_id and lower(p.topic) = lower(n.topic))
      order by n.nid desc limit $4`,
    [pairs.map((p) => p.projectId), pairs.map((p) => p.topic), excludeNids, limit],
  );
}

/** Other live memories with the same content hash in the same project as any of `nodes`. */
export async function sameHashMemories(q: Queryable, nodes: readonly NodeRecord[]): Promise<NodeRecord[]> {
  if (nodes.length === 0) return [];
  return q.query<Row>(
    `select ${NODE_COLUMNS} from nodes n
      where n.deleted_at is null and n.kind <> 'entity' and not (n.nid = any($3::bigint[]))
        and exists (select 1 from unnest($1::text[], $2::text[]) as p(project_id, hash) where p.project_id = n.project_id and p.hash = n.content_hash)
      order by n.nid`,
    [nodes.map((n) => n.project_id), nodes.map((n) => n.content_hash), nodes.map((n) => n.nid)],
  );
}

export interface StoreShape {
  memories: number;
  entities: number;
  liveEdges: number;
  /** Groups of live memories with one content hash (exact duplicates), largest first. */
  duplicateGroups: string[][];
}

/** Counts a plan depends on, for one project or the whole store. */
export async function storeShape(q: Queryable, projectId: string | null): Promise<StoreShape> {
  const [counts] = await q.query<{ memories: number; entities: number }>(
    `select count(*) filter (where kind <> 'entity')::int as memories, count(*) filter (where kind = 'entity')::int as entities
       from nodes where deleted_at is null and ($1::text is null or project_id = $1)`,
    [projectId],
  );
  const [edges] = await q.query<{ n: number }>(
    `select count(*)::int as n from edges e join nodes s on s.id = e.src
      where e.deleted_at is null and ($1::text is null or s.project_id = $1)`,
    [projectId],
  );
  const groups = await q.query<{ ids: string[] }>(
    `select array_agg(id order by nid) as ids from nodes
      where deleted_at is null and kind <> 'entity' and ($1::text is null or project_id = $1)
      group by project_id, content_hash having count(*) > 1
      order by count(*) desc, min(nid) limit 20`,
    [projectId],
  );
  return { memories: Number(counts?.memories ?? 0), entities: Number(counts?.entities ?? 0), liveEdges: Number(edges?.n ?? 0), duplicateGroups: groups.map((g) => g.ids) };
}

/** Names of live entities (relate's subjects and objects), most connected first. */
export async function entityNames(q: Queryable, projectId: string | null, limit: number): Promise<string[]> {
  const rows = await q.query<{ topic: string }>(
    `select n.topic from nodes n
      where n.kind = 'entity' and n.deleted_at is null and n.topic is not null and ($1::text is null or n.project_id = $1)
      order by (select count(*) from edges e where e.deleted_at is null and (e.src = n.id or e.dst = n.id)) desc, n.nid desc
      limit $2`,
    [projectId, limit],
  );
  return rows.map((r) => r.topic);
}

/** Live memories of a session, most recently read or written first (node_access). */
export async function sessionMemories(q: Queryable, sessionId: string, limit: number): Promise<NodeRecord[]> {
  const cols = NODE_COLUMNS.split(',')
    .map((c) => `n.${c.trim()}`)
    .join(', ');
  return q.query<Row>(
    `select ${cols} from node_access a join nodes n on n.id = a.node_id and n.deleted_at is null
      where a.session_id = $1 and n.kind <> 'entity'
      order by a.accessed_at desc, n.nid desc limit $2`,
    [sessionId, limit],
  );
}

/** Live memories (entities excluded) in the whole store. */
export async function liveMemoryTotal(q: Queryable): Promise<number> {
  const [row] = await q.query<{ n: number }>(`select count(*)::int as n from nodes where deleted_at is null and kind <> 'entity'`);
  return Number(row?.n ?? 0);
}
