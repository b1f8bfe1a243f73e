import type { Queryable } from './db.js';
import { EDGE_COLUMNS, type EdgeRecord, type NewEdge } from './edges-repo.js';
import { ENTITY_KIND } from './entities-repo.js';
import { NODE_COLUMNS, type NewNode, type NodeRecord } from './nodes-repo.js';
import { asReal } from './real.js';

/**
 * Set-at-a-time SQL for `context-graph import` / `export`: one statement per batch instead of one
 * per row, which is what makes a bulk import thousands of rows a second on PGlite.
 */

/** A node as an import writes it: a new node plus the times and version an export carried. */
export type ImportedNode = NewNode & { created_at: Date | null; updated_at: Date | null; version: number | null };
export type ImportedEdge = NewEdge & { created_at: Date | null };

// Array parameters travel as text in both drivers; a Date inside one is not serialised for us.
const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : v);

export async function insertNodesBulk(q: Queryable, nodes: readonly ImportedNode[]): Promise<NodeRecord[]> {
  if (nodes.length === 0) return [];
  const col = <K extends keyof ImportedNode>(k: K) => nodes.map((n) => iso(n[k]));
  return q.query<NodeRecord & Record<string, unknown>>(
    `insert into nodes (id, kind, project_id, memory_type, topic, content, tags, source_uri, importance, confidence,
                        metadata, content_hash, valid_from, valid_to, created_at, updated_at, version, collection)
     select r.id, r.kind, r.project_id, r.memory_type, r.topic, r.content,
            array(select jsonb_array_elements_text(r.tags)), r.source_uri, r.importance, r.confidence,
            r.metadata, r.content_hash, r.valid_from, r.valid_to,
            coalesce(r.created_at, now()), coalesce(r.updated_at, r.created_at, now()), coalesce(r.version, 1),
            coalesce(r.collection, 'default')
       from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::jsonb[], $8::text[],
                   $9::real[], $10::real[], $11::jsonb[], $12::text[], $13::timestamptz[], $14::timestamptz[],
                   $15::timestamptz[], $16::timestamptz[], $17::int[], $18::text[])
         with ordinality as r(id, kind, project_id, memory_type, topic, content, tags, source_uri, importance, confidence,
                              metadata, content_hash, valid_from, valid_to, created_at, updated_at, version, collection, ord)
      order by r.ord
     returning ${NODE_COLUMNS}`,
    [
      col('id'),
      col('kind'),
      col('project_id'),
      col('memory_type'),
      col('topic'),
      col('content'),
      nodes.map((n) => JSON.stringify(n.tags)),
      col('source_uri'),
      nodes.map((n) => asReal(n.importance, 'nodes.importance')),
      nodes.map((n) => asReal(n.confidence, 'nodes.confidence')),
      nodes.map((n) => JSON.stringify(n.metadata)),
      col('content_hash'),
      col('valid_from'),
      col('valid_to'),
      col('created_at'),
      col('updated_at'),
      col('version'),
      col('collection'),
    ],
  );
}

export async function insertEdgesBulk(q: Queryable, edges: readonly ImportedEdge[]): Promise<EdgeRecord[]> {
  if (edges.length === 0) return [];
  const col = <K extends keyof ImportedEdge>(k: K) => edges.map((e) => iso(e[k]));
  return q.query<EdgeRecord & Record<string, unknown>>(
    `insert into edges (id, src, dst, edge_type, predicate, weight, confidence, metadata, valid_from, valid_to, created_at)
     select r.id, r.src, r.dst, r.edge_type, r.predicate, r.weight, r.confidence, r.metadata, r.valid_from, r.valid_to,
            coalesce(r.created_at, now())
       from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::real[], $7::real[], $8::jsonb[],
                   $9::timestamptz[], $10::timestamptz[], $11::timestamptz[])
         with ordinality as r(id, src, dst, edge_type, predicate, weight, confidence, metadata, valid_from, valid_to, created_at, ord)
      order by r.ord
     returning ${EDGE_COLUMNS}`,
    [
      col('id'),
      col('src'),
      col('dst'),
      col('edge_type'),
      col('predicate'),
      edges.map((e) => asReal(e.weight, 'edges.weight')),
      edges.map((e) => asReal(e.confidence, 'edges.confidence')),
      edges.map((e) => JSON.stringify(e.metadata)),
      col('valid_from'),
      col('valid_to'),
      col('created_at'),
    ],
  );
}

/** Ids among `ids` that name a node, live or deleted (an import never reuses an id). */
export async function existingNodeIds(q: Queryable, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await q.query<{ id: string }>(`select id from nodes where id = any($1::text[])`, [ids]);
  return new Set(rows.map((r) => r.id));
}

/** Ids among `ids` that name a live node. */
export async function liveNodeIds(q: Queryable, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await q.query<{ id: string }>(`select id from nodes where id = any($1::text[]) and deleted_at is null`, [ids]);
  return new Set(rows.map((r) => r.id));
}

export async function existingEdgeIds(q: Queryable, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await q.query<{ id: string }>(`select id from edges where id = any($1::text[])`, [ids]);
  return new Set(rows.map((r) => r.id));
}

/** Live nodes of a project with one of these content hashes: id, hash and topic, for dedupe. */
export async function liveHashesInProject(
  q: Queryable,
  projectId: string,
  hashes: readonly string[],
): Promise<Array<{ id: string; content_hash: string; topic: string | null; collection: string }>> {
  if (hashes.length === 0) return [];
  return q.query<{ id: string; content_hash: string; topic: string | null; collection: string }>(
    `select id, content_hash, topic, collection from nodes where project_id = $1 and content_hash = any($2::text[]) and deleted_at is null`,
    [projectId, hashes],
  );
}

/** Live entities of a project by lower-cased name (the oldest when a name repeats). */
export async function liveEntitiesByNames(q: Queryable, projectId: string, names: readonly string[]): Promise<Map<string, NodeRecord>> {
  if (names.length === 0) return new Map();
  const rows = await q.query<NodeRecord & Record<string, unknown>>(
    `select ${NODE_COLUMNS} from nodes
      where kind = $1 and project_id = $2 and lower(topic) = any($3::text[]) and deleted_at is null
      order by created_at desc, id desc`,
    [ENTITY_KIND, projectId, names.map((n) => n.toLowerCase())],
  );
  return new Map(rows.map((r) => [r.topic!.toLowerCase(), r]));
}

/** Live edges among the given (src, lower(predicate), dst) triples, keyed `src|predicate|dst`. */
export async function liveTripleKeys(q: Queryable, triples: ReadonlyArray<{ src: string; predicate: string; dst: string }>): Promise<Set<string>> {
  if (triples.length === 0) return new Set();
  const rows = await q.query<{ key: string }>(
    `select e.src || '|' || lower(e.predicate) || '|' || e.dst as key
       from edges e join unnest($1::text[], $2::text[], $3::text[]) as t(src, predicate, dst)
         on e.src = t.src and e.dst = t.dst and lower(e.predicate) = t.predicate
      where e.deleted_at is null`,
    [triples.map((t) => t.src), triples.map((t) => t.predicate.toLowerCase()), triples.map((t) => t.dst)],
  );
  return new Set(rows.map((r) => r.key));
}

/** Live nodes of every kind (entities included), keyset-paged by id. */
export async function liveNodesForExport(q: Queryable, opts: { afterId: string | null; limit: number; projectId: string | null }): Promise<NodeRecord[]> {
  return q.query<NodeRecord & Record<string, unknown>>(
    `select ${NODE_COLUMNS} from nodes
      where deleted_at is null and ($1::text is null or id > $1) and ($3::text is null or project_id = $3)
      order by id limit $2`,
    [opts.afterId, opts.limit, opts.projectId],
  );
}

/** Live edges whose both ends are live (and whose source is in the project, when given), by id. */
export async function liveEdgesForExport(q: Queryable, opts: { afterId: string | null; limit: number; projectId: string | null }): Promise<EdgeRecord[]> {
  return q.query<EdgeRecord & Record<string, unknown>>(
    `select ${EDGE_COLUMNS.split(',')
      .map((c) => `e.${c.trim()}`)
      .join(', ')}
       from edges e
       join nodes s on s.id = e.src and s.deleted_at is null
       join nodes d on d.id = e.dst and d.deleted_at is null
      where e.deleted_at is null and ($1::text is null or e.id > $1) and ($3::text is null or s.project_id = $3)
      order by e.id limit $2`,
    [opts.afterId, opts.limit, opts.projectId],
  );
}

/**
 * Node or edge images as they stood after `asOfTxId`, keyset-paged by id. A project filter on
 * edges looks at the source node's project, which never changes once a node exists.
 */
export async function imagesForExport(
  q: Queryable,
  entity: 'node' | 'edge',
  asOfTxId: number,
  opts: { afterId: string | null; limit: number; projectId: string | null },
): Promise<Array<Record<string, unknown>>> {
  const rows = await q.query<{ image: Record<string, unknown> }>(
    `select s.image from (
       select distinct on (entity_id) entity_id, after as image
         from tx_changes
        where entity = $1 and tx_id <= $2 and ($3::text is null or entity_id > $3)
        order by entity_id, tx_id desc, ord desc
     ) s
     where s.image is not null and s.image->>'deleted_at' is null
       and ($5::text is null or ($1 = 'node' and s.image->>'project_id' = $5)
            or ($1 = 'edge' and exists (select 1 from nodes n where n.id = s.image->>'src' and n.project_id = $5)))
     order by s.entity_id
     limit $4`,
    [entity, asOfTxId, opts.afterId, opts.limit, opts.projectId],
  );
  return rows.map((r) => r.image);
}

export interface ExportedTransaction {
  tx_id: number;
  op: string;
  actor: string | null;
  rationale: string | null;
  reverted_by: number | null;
  created_at: Date;
  changes: Array<{ entity: string; entity_id: string; before: unknown; after: unknown }>;
}

/** Transactions after `afterTxId` up to `asOfTxId`, oldest first, each with its changes in order. */
export async function transactionsForExport(q: Queryable, opts: { afterTxId: number; asOfTxId: number; limit: number }): Promise<ExportedTransaction[]> {
  return q.query<ExportedTransaction & Record<string, unknown>>(
    `select t.tx_id, t.op, t.actor, t.rationale, t.reverted_by, t.created_at,
            coalesce((select jsonb_agg(jsonb_build_object('entity', c.entity, 'entity_id', c.entity_id, 'before', c.before, 'after', c.after) order by c.ord)
                        from tx_changes c where c.tx_id = t.tx_id), '[]'::jsonb) as changes
       from transactions t
      where t.tx_id > $1 and t.tx_id <= $2
      order by t.tx_id limit $3`,
    [opts.afterTxId, opts.asOfTxId, opts.limit],
  );
}
