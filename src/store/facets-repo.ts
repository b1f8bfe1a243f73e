import type { Queryable } from './db.js';
import { NODE_COLUMNS, type NodeRecord } from './nodes-repo.js';

/** What search filters can ask of a node's facets (all present conditions must hold). */
export interface FacetQuery {
  projectId?: string | undefined;
  /** One collection (namespace) of the project, or of every project when projectId is absent. */
  collection?: string | undefined;
  memoryType?: string | undefined;
  /** Contains-any. */
  tags?: readonly string[] | undefined;
  /** Case-insensitive equality: SQL narrows, the caller decides (see `matchingNodes`). */
  topic?: string | undefined;
  createdFrom?: Date | undefined;
  createdTo?: Date | undefined;
  excludeKinds?: readonly string[] | undefined;
  /** Only these kinds (the project-knowledge tables of seed 002 search). */
  kinds?: readonly string[] | undefined;
}

// eslint-disable-next-line no-control-regex -- the whole ASCII range, NUL included, is the point
const ASCII = /^[\x00-\x7f]*$/;

/**
 * Live nodes whose facets match: among `nids` (checking a batch of search candidates) or in
 * the whole store (listing a set `countMatchingNodes` found small). Only nid, project, and the
 * topic when it is filtered on, come back: wide rows cost several times more than the lookups
 * themselves, most of all in PGlite.
 *
 * Exact for every facet but the topic, where this returns a superset and the caller compares
 * the returned topic itself: SQL `lower()` folds only ASCII in the C locale, JavaScript all of
 * Unicode. So a topic with non-ASCII characters always passes here (octet_length ≠
 * char_length), and a non-ASCII filter value is not applied here at all.
 */
export async function matchingNodes(q: Queryable, f: FacetQuery, nids?: readonly number[]): Promise<Array<{ nid: number; project_id: string; topic: string | null }>> {
  if (nids?.length === 0) return [];
  const { where, params } = conditions(f, nids);
  // One row of arrays, not a row per node: PGlite parses each row of a result in JavaScript, which
  // cost as much as the lookups (200 candidates at 10k memories: 1.21-1.34 ms as rows, 0.66-0.68
  // as arrays). The aggregates of one group see its rows in the same order.
  const topics = f.topic === undefined ? '' : ', array_agg(topic) as topics';
  const [row] = await q.query<{ nids: Array<number | string> | null; projects: string[] | null; topics?: Array<string | null> | null }>(
    `select array_agg(nid) as nids, array_agg(project_id) as projects${topics} from nodes where ${where.join(' and ')}`,
    params,
  );
  const projects = row?.projects ?? [];
  return (row?.nids ?? []).map((nid, i) => ({ nid: Number(nid), project_id: projects[i]!, topic: row?.topics?.[i] ?? null }));
}

/**
 * How many live nodes match, counting no further than `cap`: enough to tell a small filtered set
 * from a large one without shipping its rows (the same superset as `matchingNodes`).
 */
export async function countMatchingNodes(q: Queryable, f: FacetQuery, cap: number): Promise<number> {
  const { where, params, param } = conditions(f);
  const [row] = await q.query<{ n: number }>(`select count(*)::int as n from (select 1 from nodes where ${where.join(' and ')} limit ${param(cap)}) capped`, params);
  return row?.n ?? 0;
}

function conditions(f: FacetQuery, nids?: readonly number[]): { where: string[]; params: unknown[]; param: (value: unknown) => string } {
  const where = ['deleted_at is null'];
  const params: unknown[] = [];
  const param = (value: unknown) => `$${params.push(value)}`;
  if (nids) where.push(`nid = any(${param(nids)}::bigint[])`);
  if (f.projectId !== undefined) where.push(`project_id = ${param(f.projectId)}`);
  if (f.collection !== undefined) where.push(`collection = ${param(f.collection)}`);
  if (f.memoryType !== undefined) where.push(`memory_type = ${param(f.memoryType)}`);
  if (f.tags?.length) where.push(`tags && ${param(f.tags)}::text[]`);
  if (f.topic !== undefined && ASCII.test(f.topic)) {
    where.push(`(lower(coalesce(topic, '')) = lower(${param(f.topic)}) or octet_length(topic) <> char_length(topic))`);
  }
  if (f.createdFrom) where.push(`created_at >= ${param(f.createdFrom)}`);
  if (f.createdTo) where.push(`created_at <= ${param(f.createdTo)}`);
  if (f.excludeKinds?.length) where.push(`kind <> all(${param(f.excludeKinds)}::text[])`);
  if (f.kinds?.length) where.push(`kind = any(${param(f.kinds)}::text[])`);
  return { where, params, param };
}

/** Live nodes whose facets match, oldest first (a time-ordered range to summarize), at most `limit`. */
export async function matchingNodesInTimeOrder(q: Queryable, f: FacetQuery, limit: number): Promise<NodeRecord[]> {
  const { where, params, param } = conditions(f);
  return q.query<NodeRecord & Record<string, unknown>>(`select ${NODE_COLUMNS} from nodes where ${where.join(' and ')} order by created_at, nid limit ${param(limit)}`, params);
}
