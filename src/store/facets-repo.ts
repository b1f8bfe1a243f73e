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
 * the whole store, at most `limit` rows in no particular order (search asks for one more than
 * it can score exactly, to learn whether the filtered set is small). Only nid and topic come
 * back: wide rows cost several times more than the lookups themselves, most of all in PGlite.
 *
 * Exact for every facet but the topic, where this returns a superset and the caller compares
 * the returned topic itself: SQL `lower()` folds only ASCII in the C locale, JavaScript all of
 * Unicode. So a topic with non-ASCII characters always passes here (octet_length ≠
 * char_length), and a non-ASCII filter value is not applied here at all.
 */
export async function matchingNodes(
  q: Queryable,
  f: FacetQuery,
  scope: { nids?: readonly number[]; limit?: number },
): Promise<Array<{ nid: number; topic: string | null }>> {
  if (scope.nids?.length === 0) return [];
  const where = ['deleted_at is null'];
  const params: unknown[] = [];
  const param = (value: unknown) => `$${params.push(value)}`;
  if (scope.nids) where.push(`nid = any(${param(scope.nids)}::bigint[])`);
  if (f.projectId !== undefined) where.push(`project_id = ${param(f.projectId)}`);
  if (f.memoryType !== undefined) where.push(`memory_type = ${param(f.memoryType)}`);
  if (f.tags?.length) where.push(`tags && ${param(f.tags)}::text[]`);
  if (f.topic !== undefined && ASCII.test(f.topic)) {
    where.push(`(lower(coalesce(topic, '')) = lower(${param(f.topic)}) or octet_length(topic) <> char_length(topic))`);
  }
  if (f.createdFrom) where.push(`created_at >= ${param(f.createdFrom)}`);
  if (f.createdTo) where.push(`created_at <= ${param(f.createdTo)}`);
  if (f.excludeKinds?.length) where.push(`kind <> all(${param(f.excludeKinds)}::text[])`);
  const limit = scope.limit === undefined ? '' : ` limit ${param(scope.limit)}`;
  // The topic only when the caller has to compare it: text columns are not free to ship.
  const columns = f.topic === undefined ? 'nid, null as topic' : 'nid, topic';
  return q.query<{ nid: number; topic: string | null }>(`select ${columns} from nodes where ${where.join(' and ')}${limit}`, params);
}
