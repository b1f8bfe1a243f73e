import type { Queryable } from './db.js';
import { asReal } from './real.js';

/** seed 001 §3.3: the kinds of edge the graph knows. */
export const EDGE_TYPES = ['Semantic', 'Temporal', 'Causal', 'Hierarchical', 'Relational', 'Shortcut'] as const;
export type EdgeType = (typeof EDGE_TYPES)[number];
/**
 * Edge types without a direction, stored once and reported `undirected`: Semantic (similar
 * meaning) and Shortcut (a dream's amortized shortcut between memories retrieved together).
 */
export const SYMMETRIC_EDGE_TYPES: readonly string[] = ['Semantic', 'Shortcut'];

/** Every column of an edge (none is generated): the image the transaction log records. */
export const EDGE_COLUMNS = `id, src, dst, edge_type, predicate, weight, confidence, metadata, valid_from, valid_to,
  created_at, deleted_at`;

export interface EdgeRecord {
  id: string;
  src: string;
  dst: string;
  edge_type: string;
  predicate: string;
  weight: number;
  confidence: number;
  metadata: Record<string, unknown>;
  valid_from: Date | null;
  valid_to: Date | null;
  created_at: Date;
  deleted_at: Date | null;
}

type EdgeDates = 'valid_from' | 'valid_to' | 'created_at' | 'deleted_at';

/** An edge as a transaction-log image holds it: the same fields, dates as ISO strings. */
export type EdgeImage = Omit<EdgeRecord, EdgeDates> & {
  valid_from: string | null;
  valid_to: string | null;
  created_at: string;
  deleted_at: string | null;
};

/** What a new edge is made from: the row minus what the database assigns. */
export type NewEdge = Omit<EdgeRecord, 'created_at' | 'deleted_at'>;

export async function insertEdge(q: Queryable, edge: NewEdge): Promise<EdgeRecord> {
  const [row] = await q.query<EdgeRecord & Record<string, unknown>>(
    `insert into edges (id, src, dst, edge_type, predicate, weight, confidence, metadata, valid_from, valid_to)
     values ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10)
     returning ${EDGE_COLUMNS}`,
    [
      edge.id,
      edge.src,
      edge.dst,
      edge.edge_type,
      edge.predicate,
      asReal(edge.weight, 'edges.weight'),
      asReal(edge.confidence, 'edges.confidence'),
      JSON.stringify(edge.metadata),
      edge.valid_from,
      edge.valid_to,
    ],
  );
  return row!;
}

/** The live edge src -predicate-> dst (predicate compared case-insensitively), if any. */
export async function findLiveEdge(q: Queryable, src: string, predicate: string, dst: string): Promise<EdgeRecord | null> {
  const [row] = await q.query<EdgeRecord & Record<string, unknown>>(
    `select ${EDGE_COLUMNS} from edges
      where src = $1 and dst = $3 and lower(predicate) = lower($2) and deleted_at is null
      order by created_at, id limit 1`,
    [src, predicate, dst],
  );
  return row ?? null;
}

export async function edgesByIds(q: Queryable, ids: readonly string[]): Promise<EdgeRecord[]> {
  if (ids.length === 0) return [];
  return q.query<EdgeRecord & Record<string, unknown>>(`select ${EDGE_COLUMNS} from edges where id = any($1::text[])`, [ids]);
}

export type Direction = 'out' | 'in' | 'both';

export interface EdgeFilter {
  /** Node ids the edges must touch (at the end `direction` says). */
  nodeIds: readonly string[];
  direction: Direction;
  /** Predicates to keep, compared case-insensitively; all when null/empty. */
  predicates?: readonly string[] | null;
  edgeTypes?: readonly string[] | null;
  /** Only edges whose validity interval [valid_from, valid_to) contains this instant. */
  validAt?: Date | null;
  /** Edge ids already seen, left out. */
  excludeIds?: readonly string[] | null;
  limit: number;
}

function filterParams(f: EdgeFilter): unknown[] {
  return [
    f.nodeIds,
    f.direction,
    f.predicates && f.predicates.length ? f.predicates.map((p) => p.toLowerCase()) : null,
    f.edgeTypes && f.edgeTypes.length ? f.edgeTypes : null,
    f.validAt ? f.validAt.toISOString() : null,
    f.excludeIds && f.excludeIds.length ? f.excludeIds : null,
    f.limit,
  ];
}

/**
 * Live edges touching `nodeIds` whose both ends are live nodes, oldest first. The filters are
 * applied in SQL so `limit` counts only what the caller keeps.
 */
export async function liveEdgesTouching(q: Queryable, f: EdgeFilter): Promise<EdgeRecord[]> {
  if (f.nodeIds.length === 0 || f.limit <= 0) return [];
  const cols = EDGE_COLUMNS.split(',')
    .map((c) => `e.${c.trim()}`)
    .join(', ');
  // Edges first, ends checked after (as liveEdgesAround, for the same reason): the graph-embed
  // job's read took 2-4 s with nested scans when the tables had no column statistics.
  return q.query<EdgeRecord & Record<string, unknown>>(
    `with e as materialized (
       select ${cols} from edges e
        where e.deleted_at is null
          and (($2 <> 'in' and e.src = any($1::text[])) or ($2 <> 'out' and e.dst = any($1::text[])))
          and ($3::text[] is null or lower(e.predicate) = any($3::text[]))
          and ($4::text[] is null or e.edge_type = any($4::text[]))
          and ($5::timestamptz is null or ((e.valid_from is null or e.valid_from <= $5::timestamptz)
                                       and (e.valid_to is null or e.valid_to > $5::timestamptz)))
          and ($6::text[] is null or e.id <> all($6::text[]))
     )
     select ${cols} from e
      where exists (select 1 from nodes s where s.id = e.src and s.deleted_at is null)
        and exists (select 1 from nodes d where d.id = e.dst and d.deleted_at is null)
      order by e.created_at, e.id
      limit $7`,
    filterParams(f),
  );
}

/**
 * Edges touching `nodeIds` as they stood after transaction `asOfTxId`, rebuilt from the log:
 * each candidate edge's latest image at or before it, tombstones and un-created edges left out.
 * The ends' liveness is the caller's to check (against node images of the same point).
 */
export async function edgeImagesTouchingAsOf(q: Queryable, asOfTxId: number, f: EdgeFilter): Promise<EdgeImage[]> {
  if (f.nodeIds.length === 0 || f.limit <= 0) return [];
  const rows = await q.query<{ image: EdgeImage }>(
    `with candidates as (
       select distinct entity_id from tx_changes
        where entity = 'edge' and tx_id <= $8
          and (after->>'src' = any($1::text[]) or after->>'dst' = any($1::text[])
               or before->>'src' = any($1::text[]) or before->>'dst' = any($1::text[]))
     ), latest as (
       select distinct on (c.entity_id) c.entity_id, c.after as image
         from tx_changes c join candidates k on k.entity_id = c.entity_id
        where c.entity = 'edge' and c.tx_id <= $8
        order by c.entity_id, c.tx_id desc, c.ord desc
     )
     select image from latest
      where image is not null and image->>'deleted_at' is null
        and (($2 <> 'in' and image->>'src' = any($1::text[])) or ($2 <> 'out' and image->>'dst' = any($1::text[])))
        and ($3::text[] is null or lower(image->>'predicate') = any($3::text[]))
        and ($4::text[] is null or image->>'edge_type' = any($4::text[]))
        and ($5::timestamptz is null or ((image->>'valid_from' is null or (image->>'valid_from')::timestamptz <= $5::timestamptz)
                                     and (image->>'valid_to' is null or (image->>'valid_to')::timestamptz > $5::timestamptz)))
        and ($6::text[] is null or entity_id <> all($6::text[]))
      order by image->>'created_at', entity_id
      limit $7`,
    [...filterParams(f), asOfTxId],
  );
  return rows.map((r) => r.image);
}

/** A keyset page of live edges (by id), for listings such as `knowledge://graph/triples`. */
export async function liveEdgesPage(q: Queryable, opts: { afterId?: string | null; limit: number }): Promise<EdgeRecord[]> {
  return q.query<EdgeRecord & Record<string, unknown>>(
    `select ${EDGE_COLUMNS} from edges
      where deleted_at is null and ($1::text is null or id > $1)
      order by id limit $2`,
    [opts.afterId ?? null, opts.limit],
  );
}

/** Live edges with an end in `nodeIds`, locked for the rest of the transaction. */
export async function lockLiveEdgesOfNodes(q: Queryable, nodeIds: readonly string[]): Promise<EdgeRecord[]> {
  return q.query<EdgeRecord & Record<string, unknown>>(
    `select ${EDGE_COLUMNS} from edges where (src = any($1::text[]) or dst = any($1::text[])) and deleted_at is null order by id for update`,
    [nodeIds],
  );
}

export async function softDeleteEdges(q: Queryable, ids: readonly string[]): Promise<EdgeRecord[]> {
  if (ids.length === 0) return [];
  return q.query<EdgeRecord & Record<string, unknown>>(`update edges set deleted_at = now() where id = any($1::text[]) returning ${EDGE_COLUMNS}`, [ids]);
}

/** An edge with its far end's facts, as navigation reads it around a set of nodes. */
export interface EdgeAround extends EdgeRecord {
  /** The end of the edge not in the asked set (src for an incoming edge, dst for an outgoing one). */
  far_id: string;
  /** True when the edge's src is one of the asked nodes. */
  outgoing: boolean;
}

/**
 * Live edges with an end in `nodeIds` (both ends live), at least `minWeight`, of the given
 * types (all when null), heaviest first. An edge between two asked nodes appears once per end.
 */
export async function liveEdgesAround(
  q: Queryable,
  f: { nodeIds: readonly string[]; edgeTypes: readonly string[] | null; minWeight: number; direction: Direction; limit: number },
): Promise<EdgeAround[]> {
  if (f.nodeIds.length === 0 || f.limit <= 0) return [];
  const cols = EDGE_COLUMNS.split(',')
    .map((c) => `e.${c.trim()}`)
    .join(', ');
  // The edges are read first (materialized, through their src/dst indexes) and their ends
  // checked after: a plan the planner cannot turn inside out. Without column statistics (PGlite
  // has no autovacuum) it took `nodes` for one live row and nested nodes x nodes x two scans of
  // `edges`: ~3 s at 169 memories (ARCHITECTURE.md, planner statistics).
  return q.query<EdgeAround & Record<string, unknown>>(
    `with x as materialized (
       select ${cols}, e.dst as far_id, true as outgoing from edges e
        where $2 <> 'in' and e.src = any($1::text[]) and e.deleted_at is null and e.weight >= $4
          and ($3::text[] is null or e.edge_type = any($3::text[]))
       union all
       select ${cols}, e.src as far_id, false as outgoing from edges e
        where $2 <> 'out' and e.dst = any($1::text[]) and e.deleted_at is null and e.weight >= $4
          and ($3::text[] is null or e.edge_type = any($3::text[]))
     )
     select * from x
     where exists (select 1 from nodes n where n.id = x.src and n.deleted_at is null)
       and exists (select 1 from nodes n where n.id = x.dst and n.deleted_at is null)
     order by weight desc, id
     limit $5`,
    [f.nodeIds, f.direction, f.edgeTypes && f.edgeTypes.length ? f.edgeTypes : null, f.minWeight, f.limit],
  );
}

/** The live edge between a and b of a type in either direction, if any (symmetric edges are stored once). */
/** Live edges between any of these pairs of nodes, in either direction: what a batch of planned edges checks against. */
export async function liveEdgesBetween(
  q: Queryable,
  pairs: ReadonlyArray<readonly [string, string]>,
): Promise<Array<{ src: string; dst: string; edge_type: string; predicate: string }>> {
  if (pairs.length === 0) return [];
  return q.query<{ src: string; dst: string; edge_type: string; predicate: string }>(
    `select e.src, e.dst, e.edge_type, e.predicate from edges e
       join (select distinct least(a, b) as lo, greatest(a, b) as hi from unnest($1::text[], $2::text[]) as c(a, b)) c
         on (e.src = c.lo and e.dst = c.hi) or (e.src = c.hi and e.dst = c.lo)
      where e.deleted_at is null`,
    [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
  );
}

export async function findLiveEdgeEitherWay(q: Queryable, a: string, b: string, edgeType: string): Promise<EdgeRecord | null> {
  const [row] = await q.query<EdgeRecord & Record<string, unknown>>(
    `select ${EDGE_COLUMNS} from edges
      where ((src = $1 and dst = $2) or (src = $2 and dst = $1)) and edge_type = $3 and deleted_at is null
      order by created_at, id limit 1`,
    [a, b, edgeType],
  );
  return row ?? null;
}

/** Live Hierarchical edges (child src → parent dst) whose ends are live nodes of a project. */
export async function liveHierarchyOfProject(q: Queryable, projectId: string, limit: number): Promise<Array<{ id: string; src: string; dst: string; weight: number }>> {
  return q.query<{ id: string; src: string; dst: string; weight: number }>(
    `select e.id, e.src, e.dst, e.weight from edges e
       join nodes s on s.id = e.src and s.deleted_at is null and s.project_id = $1
       join nodes d on d.id = e.dst and d.deleted_at is null
      where e.edge_type = 'Hierarchical' and e.deleted_at is null
      order by e.id limit $2`,
    [projectId, limit],
  );
}

/** Counts of live edges by type and by the method recorded in their metadata (manual when none). */
export async function edgeCountsByTypeAndMethod(q: Queryable, projectId: string | null): Promise<Array<{ edge_type: string; method: string; n: number }>> {
  return q.query<{ edge_type: string; method: string; n: number }>(
    `select e.edge_type, coalesce(e.metadata->>'method', 'manual') as method, count(*)::int as n
       from edges e join nodes s on s.id = e.src and s.deleted_at is null
      where e.deleted_at is null and ($1::text is null or s.project_id = $1)
      group by 1, 2 order by 1, 2`,
    [projectId],
  );
}
