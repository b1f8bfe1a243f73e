import type { Queryable } from './db.js';

/** Columns of a node as clients and the transaction log see it (the tsvector stays internal). */
export const NODE_COLUMNS = `nid, id, kind, project_id, memory_type, topic, content, tags, source_uri,
  importance, confidence, metadata, content_hash, valid_from, valid_to, created_at, updated_at,
  deleted_at, version`;

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
}

export interface NewNode {
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
}

export async function insertNode(q: Queryable, node: NewNode): Promise<NodeRecord> {
  const [row] = await q.query<NodeRecord & Record<string, unknown>>(
    `insert into nodes (id, kind, project_id, memory_type, topic, content, tags, source_uri,
       importance, confidence, metadata, content_hash, valid_from, valid_to)
     values ($1, $2, $3, $4, $5, $6, $7::text[], $8, $9, $10, $11::jsonb, $12, $13, $14)
     returning ${NODE_COLUMNS}`,
    [
      node.id, node.kind, node.project_id, node.memory_type, node.topic, node.content, node.tags,
      node.source_uri, node.importance, node.confidence, JSON.stringify(node.metadata),
      node.content_hash, node.valid_from, node.valid_to,
    ],
  );
  return row!;
}

export async function nodesByNid(q: Queryable, nids: readonly number[]): Promise<NodeRecord[]> {
  if (nids.length === 0) return [];
  return q.query<NodeRecord & Record<string, unknown>>(
    `select ${NODE_COLUMNS} from nodes where nid = any($1::bigint[])`,
    [nids],
  );
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
