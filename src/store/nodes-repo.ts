import type { Queryable } from './db.js';
import { asReal } from './real.js';

/** Columns of a node as clients and the transaction log see it. */
export const NODE_COLUMNS = `nid, id, kind, project_id, memory_type, topic, content, tags, source_uri,
  importance, confidence, metadata, content_hash, valid_from, valid_to, created_at, updated_at,
  deleted_at, version, collection`;

export interface NodeRecord {
  nid: number;
  id: string;
  kind: string;
  project_id: string;
  memory_type: string;
  topic: string | null;
  content: string;
  tags: string[];
  source_uri: string | null;
  importance: number;
  confidence: number;
  metadata: Record<string, unknown>;
  content_hash: string;
  valid_from: Date | null;
  valid_to: Date | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  version: number;
  /** The project's collection (namespace) it belongs to; 'default' unless given (db/080). */
  collection: string;
}

/** What a new node is made from: the row minus what the database assigns (collection: 'default' unless given). */
export type NewNode = Omit<NodeRecord, 'nid' | 'created_at' | 'updated_at' | 'deleted_at' | 'version' | 'collection'> & { collection?: string | undefined };

export async function insertNode(q: Queryable, node: NewNode): Promise<NodeRecord> {
  const [row] = await q.query<NodeRecord & Record<string, unknown>>(
    `insert into nodes (id, kind, project_id, memory_type, topic, content, tags, source_uri,
       importance, confidence, metadata, content_hash, valid_from, valid_to, collection)
     values ($1, $2, $3, $4, $5, $6, $7::text[], $8, $9, $10, $11::jsonb, $12, $13, $14, $15)
     returning ${NODE_COLUMNS}`,
    [
      node.id,
      node.kind,
      node.project_id,
      node.memory_type,
      node.topic,
      node.content,
      node.tags,
      node.source_uri,
      asReal(node.importance, 'nodes.importance'),
      asReal(node.confidence, 'nodes.confidence'),
      JSON.stringify(node.metadata),
      node.content_hash,
      node.valid_from,
      node.valid_to,
      node.collection ?? 'default',
    ],
  );
  return row!;
}

/** The fields search filters look at: a node without its content and metadata. */
export type NodeFacets = Pick<NodeRecord, 'nid' | 'kind' | 'project_id' | 'memory_type' | 'topic' | 'tags' | 'created_at' | 'deleted_at'>;

export async function nodeFacetsByNid(q: Queryable, nids: readonly number[]): Promise<NodeFacets[]> {
  if (nids.length === 0) return [];
  return q.query<NodeFacets & Record<string, unknown>>(`select nid, kind, project_id, memory_type, topic, tags, created_at, deleted_at from nodes where nid = any($1::bigint[])`, [
    nids,
  ]);
}

export async function nodesByNid(q: Queryable, nids: readonly number[]): Promise<NodeRecord[]> {
  if (nids.length === 0) return [];
  return q.query<NodeRecord & Record<string, unknown>>(`select ${NODE_COLUMNS} from nodes where nid = any($1::bigint[])`, [nids]);
}

/** Live nodes that have no vector from `modelId` in `space`: the embedding backlog. */
export async function nidsMissingEmbedding(q: Queryable, space: string, modelId: string, afterNid: number, limit: number): Promise<number[]> {
  const rows = await q.query<{ nid: number }>(
    `select n.nid from nodes n
      where n.deleted_at is null and n.nid > $4
        and not exists (select 1 from embeddings e
                         where e.node_nid = n.nid and e.space = $1 and e.model_id = $2 and e.vector is not null)
      order by n.nid limit $3`,
    [space, modelId, limit, afterNid],
  );
  return rows.map((r) => r.nid);
}

export async function nodeById(q: Queryable, id: string): Promise<NodeRecord | null> {
  const [row] = await q.query<NodeRecord & Record<string, unknown>>(`select ${NODE_COLUMNS} from nodes where id = $1`, [id]);
  return row ?? null;
}

/** Live ids next to `id` in sort order: for a mistyped or truncated ULID these are the likely ones. */
export async function neighbouringIds(q: Queryable, id: string, n: number): Promise<string[]> {
  const rows = await q.query<{ id: string }>(
    `(select id from nodes where deleted_at is null and kind <> 'entity' and id < $1 order by id desc limit $2)
     union all
     (select id from nodes where deleted_at is null and kind <> 'entity' and id >= $1 order by id limit $2)`,
    [id, n],
  );
  // Closest first: by length of the shared prefix, then by order.
  const shared = (a: string) => {
    let i = 0;
    while (i < a.length && i < id.length && a[i] === id[i]) i++;
    return i;
  };
  return rows
    .map((r) => r.id)
    .sort((a, b) => shared(b) - shared(a) || (a < b ? -1 : 1))
    .slice(0, n);
}

/** How the live memories of a set spread over projects, types and tags (needsInput suggestions). */
export function distribution(nodes: readonly NodeRecord[]): { project_id: string[]; memory_type: string[]; tags: string[] } {
  const top = (values: string[]) => {
    const counts = new Map<string, number>();
    for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
    return [...counts.entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, 8)
      .map(([v]) => v);
  };
  return {
    project_id: top(nodes.map((n) => n.project_id)),
    memory_type: top(nodes.map((n) => n.memory_type)),
    tags: top(nodes.flatMap((n) => n.tags)),
  };
}

/** Live nodes of a project whose content hash is one of `hashes`. */
/** Live nodes with these content hashes in a project, in one of its collections when given (dedupe is per collection). */
export async function liveNodesByHash(q: Queryable, projectId: string, hashes: readonly string[], collection?: string): Promise<NodeRecord[]> {
  if (hashes.length === 0) return [];
  return q.query<NodeRecord & Record<string, unknown>>(
    `select ${NODE_COLUMNS} from nodes where project_id = $1 and content_hash = any($2::text[]) and deleted_at is null and ($3::text is null or collection = $3)`,
    [projectId, hashes, collection ?? null],
  );
}

/** Live chunks previously pushed from one source, by chunk index (in one collection when given). */
export async function liveChunksBySource(q: Queryable, projectId: string, sourceUri: string, collection?: string): Promise<NodeRecord[]> {
  return q.query<NodeRecord & Record<string, unknown>>(
    `select ${NODE_COLUMNS} from nodes
      where project_id = $1 and source_uri = $2 and kind = 'chunk' and deleted_at is null and ($3::text is null or collection = $3)`,
    [projectId, sourceUri, collection ?? null],
  );
}

/** Replaces a node's content (and hash), bumping its version; returns the new row. */
export async function rewriteContent(q: Queryable, nid: number, content: string, contentHash: string, metadata: Record<string, unknown>): Promise<NodeRecord> {
  const [row] = await q.query<NodeRecord & Record<string, unknown>>(
    `update nodes set content = $2, content_hash = $3, metadata = $4::jsonb, version = version + 1, updated_at = now()
      where nid = $1 returning ${NODE_COLUMNS}`,
    [nid, content, contentHash, JSON.stringify(metadata)],
  );
  return row!;
}

/** Rows of `ids` (live or not), locked for the rest of the transaction, in id order. */
export async function lockNodesById(q: Queryable, ids: readonly string[]): Promise<NodeRecord[]> {
  return q.query<NodeRecord & Record<string, unknown>>(`select ${NODE_COLUMNS} from nodes where id = any($1::text[]) order by id for update`, [ids]);
}

export async function liveNodesById(q: Queryable, ids: readonly string[]): Promise<NodeRecord[]> {
  if (ids.length === 0) return [];
  return q.query<NodeRecord & Record<string, unknown>>(`select ${NODE_COLUMNS} from nodes where id = any($1::text[]) and deleted_at is null`, [ids]);
}

export type NodeEdit = Pick<NodeRecord, 'content' | 'topic' | 'tags' | 'importance' | 'confidence' | 'memory_type' | 'source_uri' | 'content_hash' | 'valid_from' | 'valid_to'>;

/** An in-place edit: the fields replaced, version + 1. */
export async function editNode(q: Queryable, id: string, f: NodeEdit): Promise<NodeRecord> {
  const [row] = await q.query<NodeRecord & Record<string, unknown>>(
    `update nodes set content = $2, topic = $3, tags = $4::text[], importance = $5, confidence = $6, memory_type = $7,
            source_uri = $8, content_hash = $9, valid_from = $10, valid_to = $11,
            version = version + 1, updated_at = now()
      where id = $1 returning ${NODE_COLUMNS}`,
    [
      id,
      f.content,
      f.topic,
      f.tags,
      asReal(f.importance, 'nodes.importance'),
      asReal(f.confidence, 'nodes.confidence'),
      f.memory_type,
      f.source_uri,
      f.content_hash,
      f.valid_from,
      f.valid_to,
    ],
  );
  return row!;
}

/** Closes a fact at `validTo` and records what superseded it. */
export async function closeNode(q: Queryable, id: string, validTo: Date, supersededBy: string): Promise<NodeRecord> {
  const [row] = await q.query<NodeRecord & Record<string, unknown>>(
    `update nodes set valid_to = $2, metadata = metadata || jsonb_build_object('superseded_by', $3::text),
            version = version + 1, updated_at = now()
      where id = $1 returning ${NODE_COLUMNS}`,
    [id, validTo, supersededBy],
  );
  return row!;
}

export async function softDeleteNodes(q: Queryable, ids: readonly string[]): Promise<NodeRecord[]> {
  return q.query<NodeRecord & Record<string, unknown>>(
    `update nodes set deleted_at = now(), updated_at = now(), version = version + 1
      where id = any($1::text[]) returning ${NODE_COLUMNS}`,
    [ids],
  );
}

/** Live ids most similar to `text` (trigram similarity above 0.2), best first. */
export async function liveIdsSimilarTo(q: Queryable, text: string, limit: number): Promise<string[]> {
  const rows = await q.query<{ id: string }>(
    `select id from nodes where deleted_at is null and similarity(id, $1) > 0.2
      order by similarity(id, $1) desc, updated_at desc limit $2`,
    [text, limit],
  );
  return rows.map((r) => r.id);
}

export async function recentlyUpdatedIds(q: Queryable, limit: number): Promise<string[]> {
  const rows = await q.query<{ id: string }>(`select id from nodes where deleted_at is null order by updated_at desc, id desc limit $1`, [limit]);
  return rows.map((r) => r.id);
}

/** The transaction's clock: every row it writes carries this same instant. */
export async function transactionNow(q: Queryable): Promise<Date> {
  const [row] = await q.query<{ now: Date }>(`select now() as now`);
  return row!.now;
}

/** Topics of live memories, most recently used first. */
export async function recentTopics(q: Queryable, limit: number): Promise<string[]> {
  const rows = await q.query<{ topic: string }>(
    `select topic from nodes where deleted_at is null and topic is not null and kind <> 'entity'
      group by topic order by max(created_at) desc limit $1`,
    [limit],
  );
  return rows.map((r) => r.topic);
}
