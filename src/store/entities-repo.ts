import type { Queryable } from './db.js';
import { NODE_COLUMNS, type NodeRecord } from './nodes-repo.js';

/** Named entities are nodes of this kind whose topic is the name (case-insensitive within a project). */
export const ENTITY_KIND = 'entity';

export async function liveEntityByName(q: Queryable, projectId: string, name: string): Promise<NodeRecord | null> {
  const [row] = await q.query<NodeRecord & Record<string, unknown>>(
    `select ${NODE_COLUMNS} from nodes
      where kind = $1 and project_id = $2 and lower(topic) = lower($3) and deleted_at is null
      order by created_at, id limit 1`,
    [ENTITY_KIND, projectId, name],
  );
  return row ?? null;
}

const ENTITY_COLUMNS = NODE_COLUMNS.split(',')
  .map((c) => `n.${c.trim()}`)
  .join(', ');

/**
 * liveEntityByName for several names in one statement: by each name as given, the live entity
 * whose name matches it case-insensitively (the oldest when several).
 */
export async function liveEntitiesByName(q: Queryable, projectId: string, names: readonly string[]): Promise<Map<string, NodeRecord>> {
  if (names.length === 0) return new Map();
  const rows = await q.query<NodeRecord & { wanted: string } & Record<string, unknown>>(
    `select distinct on (w.name) w.name as wanted, ${ENTITY_COLUMNS}
       from unnest($3::text[]) as w(name)
       join nodes n on n.kind = $1 and n.project_id = $2 and lower(n.topic) = lower(w.name) and n.deleted_at is null
      order by w.name, n.created_at, n.id`,
    [ENTITY_KIND, projectId, [...new Set(names)]],
  );
  return new Map(rows.map(({ wanted, ...node }) => [wanted, node as NodeRecord]));
}

/** The entity of that name as it stood after `asOfTxId`, as its logged image (dates as strings). */
export async function entityImageByNameAsOf(q: Queryable, asOfTxId: number, projectId: string, name: string): Promise<Record<string, unknown> | null> {
  const rows = await q.query<{ image: Record<string, unknown> }>(
    `with candidates as (
       select distinct entity_id from tx_changes
        where entity = 'node' and tx_id <= $1 and after->>'kind' = $2 and lower(after->>'topic') = lower($4)
     ), latest as (
       select distinct on (c.entity_id) c.entity_id, c.after as image
         from tx_changes c join candidates k on k.entity_id = c.entity_id
        where c.entity = 'node' and c.tx_id <= $1
        order by c.entity_id, c.tx_id desc, c.ord desc
     )
     select image from latest
      where image is not null and image->>'deleted_at' is null and image->>'kind' = $2
        and image->>'project_id' = $3 and lower(image->>'topic') = lower($4)
      order by image->>'created_at', entity_id limit 1`,
    [asOfTxId, ENTITY_KIND, projectId, name],
  );
  return rows[0]?.image ?? null;
}

/** Names (entities) or ids (entries) of a project closest to `text` by trigram similarity, then the most recent. */
export async function closestNamesInProject(q: Queryable, text: string, projectId: string, limit: number): Promise<string[]> {
  const rows = await q.query<{ id: string; kind: string; topic: string | null }>(
    `select id, kind, topic from nodes
      where deleted_at is null and project_id = $2
      order by (case when topic is null then 0 else similarity(topic, $1) end) desc, created_at desc, id desc
      limit $3`,
    [text, projectId, limit],
  );
  return rows.map((r) => (r.kind === ENTITY_KIND && r.topic ? r.topic : r.id));
}
