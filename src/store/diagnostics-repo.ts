import type { Queryable } from './db.js';
import { fromBytes } from './vector-bytes.js';
import { NODE_COLUMNS, type NodeRecord } from './nodes-repo.js';

/**
 * Reads behind the diagnostic and admin tools (issue 10): samples of a project's vectors and
 * memories (ordered by a hash of the id, so a sample is stable and spread over the project), each
 * memory's importance and degree, the importance it was stored with, quarantined memories and the
 * memories a manifest file pinned.
 */

const LIVE_MEMORY = `n.deleted_at is null and n.kind <> 'entity'`;

/** Up to `limit` live memories' vectors of one space, a stable hash-ordered sample of the project. */
export async function sampleVectors(q: Queryable, space: string, projectId: string, limit: number): Promise<Array<{ nid: number; vector: Float32Array }>> {
  const rows = await q.query<{ nid: number; dim: number; vector: Uint8Array }>(
    `select n.nid, e.dim, e.vector from nodes n join embeddings e on e.node_nid = n.nid and e.space = $1 and e.vector is not null
      where n.project_id = $2 and ${LIVE_MEMORY}
      order by md5(n.id) limit $3`,
    [space, projectId, limit],
  );
  return rows.map((r) => ({ nid: r.nid, vector: fromBytes(r.vector, r.dim) }));
}

/** Up to `limit` live memories of the project, the same stable sample order. */
export async function sampleMemories(q: Queryable, projectId: string, limit: number): Promise<NodeRecord[]> {
  const cols = NODE_COLUMNS.split(',')
    .map((c) => `n.${c.trim()}`)
    .join(', ');
  return q.query<NodeRecord & Record<string, unknown>>(`select ${cols} from nodes n where n.project_id = $1 and ${LIVE_MEMORY} order by md5(n.id) limit $2`, [projectId, limit]);
}

export interface ImportanceRow {
  id: string;
  nid: number;
  importance: number;
  /** Live edges touching the node (either end). */
  degree: number;
  /** Importance in the node's first logged image: what it was stored with. */
  stored_importance: number | null;
}

/** Importance, degree and stored importance of every live memory of a project (at most `limit`). */
export async function importanceAndDegree(q: Queryable, projectId: string, limit: number): Promise<ImportanceRow[]> {
  return q.query<ImportanceRow & Record<string, unknown>>(
    `select n.id, n.nid, n.importance::float8 as importance,
            (select count(*)::int from edges e where e.deleted_at is null and (e.src = n.id or e.dst = n.id)) as degree,
            (select (c.after->>'importance')::float8 from tx_changes c
              where c.entity = 'node' and c.entity_id = n.id and c.after is not null order by c.tx_id, c.ord limit 1) as stored_importance
       from nodes n where n.project_id = $1 and ${LIVE_MEMORY}
      order by n.nid limit $2`,
    [projectId, limit],
  );
}

/** Live edges touching one node (either end): the `degree` of importanceAndDegree, for one node, from the edge indexes. */
export async function liveDegree(q: Queryable, id: string): Promise<number> {
  const [row] = await q.query<{ n: number }>(
    `select (select count(*) from edges where deleted_at is null and src = $1)::int + (select count(*) from edges where deleted_at is null and dst = $1 and src <> $1)::int as n`,
    [id],
  );
  return row?.n ?? 0;
}

/** Live nodes carrying a quarantine record, newest first; all projects when `projectId` is null. */
export async function quarantinedNodes(q: Queryable, projectId: string | null, limit: number): Promise<NodeRecord[]> {
  const cols = NODE_COLUMNS.split(',')
    .map((c) => `n.${c.trim()}`)
    .join(', ');
  return q.query<NodeRecord & Record<string, unknown>>(
    `select ${cols} from nodes n
      where n.deleted_at is null and n.metadata ? 'quarantine' and ($1::text is null or n.project_id = $1)
      order by (n.metadata->'quarantine'->>'at') desc nulls last, n.nid desc limit $2`,
    [projectId, limit],
  );
}

/** Live memories a manifest file pinned (metadata.manifest.path), oldest first. */
export async function manifestNodes(q: Queryable, path: string): Promise<NodeRecord[]> {
  const cols = NODE_COLUMNS.split(',')
    .map((c) => `n.${c.trim()}`)
    .join(', ');
  return q.query<NodeRecord & Record<string, unknown>>(
    `select ${cols} from nodes n where n.deleted_at is null and n.metadata ? 'manifest' and n.metadata->'manifest'->>'path' = $1 order by n.nid`,
    [path],
  );
}

/** Replaces a node's metadata (quarantine, manifest bookkeeping), version + 1. */
export async function setNodeMetadata(q: Queryable, id: string, metadata: Record<string, unknown>): Promise<NodeRecord> {
  const [row] = await q.query<NodeRecord & Record<string, unknown>>(
    `update nodes set metadata = $2::jsonb, version = version + 1, updated_at = now() where id = $1 returning ${NODE_COLUMNS}`,
    [id, JSON.stringify(metadata)],
  );
  return row!;
}
