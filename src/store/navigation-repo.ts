import type { Queryable } from './db.js';
import { fromBytes } from './vector-bytes.js';
import { NODE_COLUMNS, type NodeRecord } from './nodes-repo.js';
import { realArray } from './real.js';

/**
 * Reads and writes behind the navigation toolset (seed 001 §3.3): per-session access times,
 * the neighbours in time of a memory, E1 vectors for exact scans, and fitted Poincaré coordinates.
 */

/**
 * Data-modifying CTEs (`with` items) that record a session's reads (or writes) now of the nodes
 * in the text[] parameters `ids` and `projects` (distinct ids): per session in node_access, and
 * in their totals over every session, node_access_totals (db/180), not columns of `nodes`.
 */
export function accessCtes(session: string, ids: string, projects: string): string {
  return `accessed as (
       insert into node_access (session_id, node_id, project_id)
       select ${session}, a.id, a.project_id from unnest(${ids}::text[], ${projects}::text[]) as a(id, project_id)
       on conflict (session_id, node_id) do update set accessed_at = now(), access_count = node_access.access_count + 1),
     totals as (
       insert into node_access_totals (node_id, access_count, last_accessed_at)
       select a.id, 1, now() from unnest(${ids}::text[]) as a(id)
       on conflict (node_id) do update set access_count = node_access_totals.access_count + 1, last_accessed_at = now())`;
}

/** The nodes once each: one statement may not update a row of node_access or its totals twice. */
export function distinctNodes<T extends { id: string }>(nodes: readonly T[]): T[] {
  return [...new Map(nodes.map((n) => [n.id, n])).values()];
}

/** Marks nodes as read (or written) now by a session; bumps each node's access count and time. */
export async function recordAccess(q: Queryable, sessionId: string, accessed: ReadonlyArray<{ id: string; project_id: string }>): Promise<void> {
  const nodes = distinctNodes(accessed);
  if (nodes.length === 0) return;
  await q.query(`with ${accessCtes('$1', '$2', '$3')} select 1`, [sessionId, nodes.map((n) => n.id), nodes.map((n) => n.project_id)]);
}

export interface RecentNode extends NodeRecord {
  accessed_at: Date;
  access_count: number;
}

/**
 * Live memories (not entities) most recently read or written: by anyone (node_access_totals,
 * falling back to creation time for memories never read) or, with `sessionId`, by that session only.
 */
export async function recentlyAccessed(q: Queryable, opts: { sessionId: string | null; projectId: string | null; since: Date | null; limit: number }): Promise<RecentNode[]> {
  const cols = NODE_COLUMNS.split(',')
    .map((c) => `n.${c.trim()}`)
    .join(', ');
  if (opts.sessionId !== null) {
    return q.query<RecentNode & Record<string, unknown>>(
      `select ${cols}, a.accessed_at, a.access_count from node_access a join nodes n on n.id = a.node_id and n.deleted_at is null
        where a.session_id = $1 and n.kind <> 'entity' and ($2::text is null or n.project_id = $2)
          and ($3::timestamptz is null or a.accessed_at >= $3::timestamptz)
        order by a.accessed_at desc, n.nid desc limit $4`,
      [opts.sessionId, opts.projectId, opts.since, opts.limit],
    );
  }
  return q.query<RecentNode & Record<string, unknown>>(
    `select * from (
       (select ${cols}, t.last_accessed_at as accessed_at, t.access_count from node_access_totals t join nodes n on n.id = t.node_id
         where n.deleted_at is null and n.kind <> 'entity'
           and ($1::text is null or n.project_id = $1) and ($2::timestamptz is null or t.last_accessed_at >= $2::timestamptz)
         order by t.last_accessed_at desc limit $3)
       union all
       (select ${cols}, n.created_at as accessed_at, 0 as access_count from nodes n
         where n.deleted_at is null and n.kind <> 'entity' and not exists (select 1 from node_access_totals t where t.node_id = n.id)
           and ($1::text is null or n.project_id = $1) and ($2::timestamptz is null or n.created_at >= $2::timestamptz)
         order by n.nid desc limit $3)
     ) x order by accessed_at desc, nid desc limit $3`,
    [opts.projectId, opts.since, opts.limit],
  );
}

/** What orders memories of one conversation: when the turn happened, else when it was stored. */
const TURN_ORDER = `coalesce(valid_from, created_at)`;

/**
 * The live memory just before (or after) `node` in its sequence: same project and the same
 * source_uri or metadata session, ordered by valid_from/created_at then nid.
 */
export async function adjacentInSequence(
  q: Queryable,
  node: NodeRecord,
  key: { column: 'source_uri' | 'session'; value: string },
  which: 'previous' | 'next',
): Promise<NodeRecord | null> {
  const match = key.column === 'source_uri' ? `source_uri = $2` : `metadata->>'session' = $2`;
  const cmp = which === 'previous' ? '<' : '>';
  const dir = which === 'previous' ? 'desc' : 'asc';
  const [row] = await q.query<NodeRecord & Record<string, unknown>>(
    `select ${NODE_COLUMNS} from nodes
      where project_id = $1 and ${match} and deleted_at is null and kind <> 'entity' and nid <> $3
        and (${TURN_ORDER}, nid) ${cmp} ($4::timestamptz, $3::bigint)
      order by ${TURN_ORDER} ${dir}, nid ${dir} limit 1`,
    [node.project_id, key.value, node.nid, node.valid_from ?? node.created_at],
  );
  return row ?? null;
}

/** nids of a project's live memories (not entities) after `afterNid`, in nid order: a page of a whole-project run. */
export async function memoryNidsOfProject(q: Queryable, projectId: string, afterNid: number, limit: number): Promise<number[]> {
  const rows = await q.query<{ nid: number }>(`select nid from nodes where project_id = $1 and deleted_at is null and kind <> 'entity' and nid > $2 order by nid limit $3`, [
    projectId,
    afterNid,
    limit,
  ]);
  return rows.map((r) => r.nid);
}

export async function countMemoriesOfProject(q: Queryable, projectId: string): Promise<number> {
  const [row] = await q.query<{ n: number }>(`select count(*)::int as n from nodes where project_id = $1 and deleted_at is null and kind <> 'entity'`, [projectId]);
  return row?.n ?? 0;
}

/** Stored vectors of one space for the given nodes (by nid). */
export async function vectorsOf(q: Queryable, space: string, nids: readonly number[]): Promise<Map<number, Float32Array>> {
  if (nids.length === 0) return new Map();
  const rows = await q.query<{ node_nid: number; dim: number; vector: Uint8Array }>(
    `select node_nid, dim, vector from embeddings where space = $1 and node_nid = any($2::bigint[]) and vector is not null`,
    [space, nids],
  );
  return new Map(rows.map((r) => [r.node_nid, fromBytes(r.vector, r.dim)]));
}

/** A keyset page of a project's live memories' vectors in one space: the exact scan of a process without indexes. */
export async function vectorsOfProjectPage(q: Queryable, space: string, projectId: string, afterNid: number, limit: number): Promise<Array<{ nid: number; vector: Float32Array }>> {
  const rows = await q.query<{ nid: number; dim: number; vector: Uint8Array }>(
    `select n.nid, e.dim, e.vector from nodes n join embeddings e on e.node_nid = n.nid and e.space = $1 and e.vector is not null
      where n.project_id = $2 and n.deleted_at is null and n.kind <> 'entity' and n.nid > $3
      order by n.nid limit $4`,
    [space, projectId, afterNid, limit],
  );
  return rows.map((r) => ({ nid: r.nid, vector: fromBytes(r.vector, r.dim) }));
}

export interface StoredCoords {
  node_id: string;
  coords: number[];
  hierarchy_sig: string;
  job_id: string | null;
  fitted_at: Date;
}

/** Replaces a project's coordinates in one space with a new fit (one statement per table, one transaction). */
export async function replaceCoords(
  q: Queryable,
  projectId: string,
  space: string,
  sig: string,
  jobId: string,
  points: ReadonlyArray<{ nodeId: string; coords: number[] }>,
): Promise<void> {
  await q.query(`delete from hyperbolic_coords where project_id = $1 and space = $2`, [projectId, space]);
  if (points.length === 0) return;
  await q.query(
    `insert into hyperbolic_coords (project_id, space, node_id, coords, hierarchy_sig, job_id)
     select $1, $2, p.node_id, p.coords::real[], $3, $4 from unnest($5::text[], $6::text[]) as p(node_id, coords)`,
    [projectId, space, sig, jobId, points.map((p) => p.nodeId), points.map((p) => `{${realArray(p.coords, 'hyperbolic_coords.coords').join(',')}}`)],
  );
}

export async function coordsOfProject(q: Queryable, projectId: string, space: string): Promise<StoredCoords[]> {
  return q.query<StoredCoords & Record<string, unknown>>(`select node_id, coords, hierarchy_sig, job_id, fitted_at from hyperbolic_coords where project_id = $1 and space = $2`, [
    projectId,
    space,
  ]);
}

/** Points of a project's current fit in a space. */
export async function coordsCount(q: Queryable, projectId: string, space: string): Promise<number> {
  const [row] = await q.query<{ n: number }>(`select count(*)::int as n from hyperbolic_coords where project_id = $1 and space = $2`, [projectId, space]);
  return row?.n ?? 0;
}

/** The signature and time of a project's current fit in a space, or null before the first. */
export async function fitOf(q: Queryable, projectId: string, space: string): Promise<{ hierarchy_sig: string; fitted_at: Date; job_id: string | null } | null> {
  // A fit replaces all rows of its project and space in one transaction, so any row carries its stamp and time.
  const [row] = await q.query<{ hierarchy_sig: string; fitted_at: Date; job_id: string | null }>(
    `select hierarchy_sig, fitted_at, job_id from hyperbolic_coords where project_id = $1 and space = $2 limit 1`,
    [projectId, space],
  );
  return row ?? null;
}

/**
 * A cheap stamp of a project's live hierarchy: how many Hierarchical edges and the newest id.
 * Adding or removing an edge changes it, so a fit whose stamp differs is stale.
 */
export async function hierarchyStamp(q: Queryable, projectId: string): Promise<string> {
  // Per-edge subqueries rather than joins: the planner hashed the project's every node for the
  // join (146 ms per entailment_query at 100k memories); this probes two keys per Hierarchical edge.
  const [row] = await q.query<{ n: number; last: string | null }>(
    `select count(*)::int as n, max(e.id) as last from edges e
      where e.edge_type = 'Hierarchical' and e.deleted_at is null
        and (select s.project_id from nodes s where s.id = e.src and s.deleted_at is null) = $1
        and (select d.deleted_at is null from nodes d where d.id = e.dst)`,
    [projectId],
  );
  return `${row?.n ?? 0}-${row?.last ?? 'none'}`;
}

/** nids of nodes by id (live or not), for reading their vectors. */
export async function nidsOfIds(q: Queryable, ids: readonly string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await q.query<{ id: string; nid: number }>(`select id, nid from nodes where id = any($1::text[])`, [ids]);
  return new Map(rows.map((r) => [r.id, r.nid]));
}

/** Up to `limit` live memories just before `node` in its sequence, nearest first (see adjacentInSequence). */
export async function earlierInSequence(q: Queryable, node: NodeRecord, key: { column: 'source_uri' | 'session'; value: string }, limit: number): Promise<NodeRecord[]> {
  const match = key.column === 'source_uri' ? `source_uri = $2` : `metadata->>'session' = $2`;
  return q.query<NodeRecord & Record<string, unknown>>(
    `select ${NODE_COLUMNS} from nodes
      where project_id = $1 and ${match} and deleted_at is null and kind <> 'entity' and nid <> $3
        and (${TURN_ORDER}, nid) < ($4::timestamptz, $3::bigint)
      order by ${TURN_ORDER} desc, nid desc limit $5`,
    [node.project_id, key.value, node.nid, node.valid_from ?? node.created_at, limit],
  );
}
