import type { Queryable } from './db.js';
import { EDGE_COLUMNS, type EdgeRecord } from './edges-repo.js';
import { NODE_COLUMNS, type NodeRecord } from './nodes-repo.js';

/**
 * SQL of the project-knowledge model (seed 002): phases, works, paths, tides and patterns are
 * nodes of their own `kind`, their structured fields in `metadata`, and their links typed edges;
 * so the transaction log, undo, search and subscriptions treat them like every other node.
 */

/** Whether any node, live or deleted, has this id: a generated id is never reused. */
export async function nodeIdTaken(q: Queryable, id: string): Promise<boolean> {
  const rows = await q.query<{ one: number }>(`select 1 as one from nodes where id = $1`, [id]);
  return rows.length > 0;
}

/** How many nodes of a kind were ever created (deleted ones count: numbers are not reused). */
export async function countNodesOfKind(q: Queryable, kind: string): Promise<number> {
  const [row] = await q.query<{ n: number }>(`select count(*)::int as n from nodes where kind = $1`, [kind]);
  return row?.n ?? 0;
}

export interface KindPage {
  kind: string;
  limit: number;
  /** Only nodes whose `metadata[parentKey]` is this id (e.g. the paths of one phase). */
  parent?: { key: string; id: string } | undefined;
  /** Keyset: nodes created after this id's row, in creation order. */
  afterId?: string | undefined;
}

/** Live nodes of a kind in creation order (then id), optionally under one parent. */
export async function liveNodesOfKind(q: Queryable, p: KindPage): Promise<NodeRecord[]> {
  return q.query<NodeRecord & Record<string, unknown>>(
    `select ${NODE_COLUMNS} from nodes
      where kind = $1 and deleted_at is null
        and ($2::text is null or metadata->>$2 = $3)
        and ($4::text is null or (created_at, id) > (select created_at, id from nodes where id = $4))
      order by created_at, id limit $5`,
    [p.kind, p.parent?.key ?? null, p.parent?.id ?? null, p.afterId ?? null, p.limit],
  );
}

/** Live nodes of the given kinds, for export and structure checks, oldest first. */
export async function liveNodesOfKinds(q: Queryable, kinds: readonly string[], limit: number): Promise<NodeRecord[]> {
  return q.query<NodeRecord & Record<string, unknown>>(`select ${NODE_COLUMNS} from nodes where kind = any($1::text[]) and deleted_at is null order by created_at, id limit $2`, [
    kinds,
    limit,
  ]);
}

/** Live nodes of the given kinds carrying any of `tags`, newest first. */
export async function liveNodesWithTags(q: Queryable, kinds: readonly string[], tags: readonly string[], matchAll: boolean, limit: number): Promise<NodeRecord[]> {
  return q.query<NodeRecord & Record<string, unknown>>(
    `select ${NODE_COLUMNS} from nodes
      where kind = any($1::text[]) and deleted_at is null
        and (case when $3 then tags @> $2::text[] else tags && $2::text[] end)
      order by updated_at desc, id limit $4`,
    [kinds, tags, matchAll, limit],
  );
}

/** One node of a kind (live or deleted), locked for the rest of the transaction. */
export async function nodeOfKindForUpdate(q: Queryable, kind: string, id: string): Promise<NodeRecord | null> {
  const [row] = await q.query<NodeRecord & Record<string, unknown>>(`select ${NODE_COLUMNS} from nodes where id = $1 and kind = $2 for update`, [id, kind]);
  return row ?? null;
}

export async function liveNodeOfKind(q: Queryable, kind: string, id: string): Promise<NodeRecord | null> {
  const [row] = await q.query<NodeRecord & Record<string, unknown>>(`select ${NODE_COLUMNS} from nodes where id = $1 and kind = $2 and deleted_at is null`, [id, kind]);
  return row ?? null;
}

/** Replaces what a project node says (its text, title, tags and fields); version + 1. */
export async function rewriteProjectNode(
  q: Queryable,
  id: string,
  f: { topic: string; content: string; tags: string[]; metadata: Record<string, unknown>; content_hash: string },
): Promise<NodeRecord> {
  const [row] = await q.query<NodeRecord & Record<string, unknown>>(
    `update nodes set topic = $2, content = $3, tags = $4::text[], metadata = $5::jsonb, content_hash = $6,
            version = version + 1, updated_at = now()
      where id = $1 returning ${NODE_COLUMNS}`,
    [id, f.topic, f.content, f.tags, JSON.stringify(f.metadata), f.content_hash],
  );
  return row!;
}

/** Live edges leaving `src` with this predicate, by their `sequence` (then creation). */
export async function liveEdgesFrom(q: Queryable, src: string, predicate: string): Promise<EdgeRecord[]> {
  return q.query<EdgeRecord & Record<string, unknown>>(
    `select ${EDGE_COLUMNS} from edges where src = $1 and predicate = $2 and deleted_at is null
      order by coalesce((metadata->>'sequence')::int, 0), created_at, id`,
    [src, predicate],
  );
}

/** Live edges with one of these predicates (the model's own links), for structure checks. */
export async function liveEdgesWithPredicates(q: Queryable, predicates: readonly string[], limit: number): Promise<EdgeRecord[]> {
  return q.query<EdgeRecord & Record<string, unknown>>(
    `select ${EDGE_COLUMNS} from edges where predicate = any($1::text[]) and deleted_at is null order by created_at, id limit $2`,
    [predicates, limit],
  );
}

/** Ids among `ids` that are live nodes. */
export async function liveIdsAmong(q: Queryable, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await q.query<{ id: string }>(`select id from nodes where id = any($1::text[]) and deleted_at is null`, [ids]);
  return new Set(rows.map((r) => r.id));
}

/** The next tide number of a path: max + 1 over every tide it ever had. */
export async function nextTideNumber(q: Queryable, pathId: string): Promise<number> {
  const [row] = await q.query<{ n: number | null }>(`select max((metadata->>'number')::int) as n from nodes where kind = 'tide' and metadata->>'path_id' = $1`, [pathId]);
  return (row?.n ?? 0) + 1;
}

/** Live ids of a kind most similar to `text` (trigram), best first: suggestions for a wrong id. */
export async function similarIdsOfKind(q: Queryable, kind: string, text: string, limit: number): Promise<string[]> {
  const rows = await q.query<{ id: string }>(
    `select id from nodes where kind = $1 and deleted_at is null
      order by greatest(similarity(id, $2), similarity(coalesce(topic, ''), $2)) desc, updated_at desc, id limit $3`,
    [kind, text, limit],
  );
  return rows.map((r) => r.id);
}

/** Live edges arriving at `dst` with this predicate (e.g. the paths that include a work). */
export async function liveEdgesTo(q: Queryable, dst: string, predicate: string): Promise<EdgeRecord[]> {
  return q.query<EdgeRecord & Record<string, unknown>>(`select ${EDGE_COLUMNS} from edges where dst = $1 and predicate = $2 and deleted_at is null order by created_at, id`, [
    dst,
    predicate,
  ]);
}
