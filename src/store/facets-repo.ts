import type { Queryable } from './db.js';

/** What search filters can ask of a node's facets (all present conditions must hold). */
export interface FacetQuery {
  projectId?: string | undefined;
  memoryType?: string | undefined;
  /** Contains-any. */
  tags?: readonly string[] | undefined;
  /** Case-insensitive equality: SQL narrows, the caller decides (see `matchingNodes`). */
  topic?: string | undefined;
  createdFrom?: Date | undefined;
  createdTo?: Date | undefined;
  excludeKinds?: readonly string[] | undefined;
}

// eslint-disable-next-line no-control-regex -- the whole ASCII range, NUL included, is the point
const ASCII = /^[\x00-\x7f]*$/;

/**
 * Live nodes whose facets match: among `nids` (checking a batch of search candidates) or in
 * the whole store (listing a set `countMatchingNodes` found small). Only nid, and the topic
 * when it is filtered on, come back: wide rows cost several times more than the lookups
 * themselves, most of all in PGlite.
 *
 * Exact for every facet but the topic, where this returns a superset and the caller compares
 * the returned topic itself: SQL `lower()` folds only ASCII in the C locale, JavaScript all of
 * Unicode. So a topic with non-ASCII characters always passes here (octet_length ≠
 * char_length), and a non-ASCII filter value is not applied here at all.
 */
export async function matchingNodes(q: Queryable, f: FacetQuery, nids?: readonly number[]): Promise<Array<{ nid: number; topic: string | null }>> {
  if (nids?.length === 0) return [];
  const { where, params } = conditions(f, nids);
  const columns = f.topic === undefined ? 'nid, null as topic' : 'nid, topic';
  return q.query<{ nid: number; topic: string | null }>(`select ${columns} from nodes where ${where.join(' and ')}`, params);
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
  if (f.memoryType !== undefined) where.push(`memory_type = ${param(f.memoryType)}`);
  if (f.tags?.length) where.push(`tags && ${param(f.tags)}::text[]`);
  if (f.topic !== undefined && ASCII.test(f.topic)) {
    where.push(`(lower(coalesce(topic, '')) = lower(${param(f.topic)}) or octet_length(topic) <> char_length(topic))`);
  }
  if (f.createdFrom) where.push(`created_at >= ${param(f.createdFrom)}`);
  if (f.createdTo) where.push(`created_at <= ${param(f.createdTo)}`);
  if (f.excludeKinds?.length) where.push(`kind <> all(${param(f.excludeKinds)}::text[])`);
  return { where, params, param };
}
