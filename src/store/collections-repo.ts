import type { Queryable } from './db.js';

/** SQL of collections (db/080): the declarations and the per-collection figures read from nodes. */

export interface CollectionRow {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  created_at: Date;
}

const COLUMNS = 'id, project_id, name, description, created_at';

/** Declares a collection; null when the project already has one by that name (nothing written). */
export async function insertCollection(q: Queryable, row: Pick<CollectionRow, 'id' | 'project_id' | 'name' | 'description'>): Promise<CollectionRow | null> {
  const [inserted] = await q.query<CollectionRow & Record<string, unknown>>(
    `insert into collections (id, project_id, name, description) values ($1, $2, $3, $4)
     on conflict (project_id, name) do nothing returning ${COLUMNS}`,
    [row.id, row.project_id, row.name, row.description],
  );
  return inserted ?? null;
}

export async function collectionByName(q: Queryable, projectId: string, name: string): Promise<CollectionRow | null> {
  const [row] = await q.query<CollectionRow & Record<string, unknown>>(`select ${COLUMNS} from collections where project_id = $1 and name = $2`, [projectId, name]);
  return row ?? null;
}

export async function collectionByIdForUpdate(q: Queryable, id: string): Promise<CollectionRow | null> {
  const [row] = await q.query<CollectionRow & Record<string, unknown>>(`select ${COLUMNS} from collections where id = $1 for update`, [id]);
  return row ?? null;
}

/** Writes a declaration back to a logged image (undo/redo). */
export async function restoreCollectionRow(q: Queryable, image: Record<string, unknown>): Promise<CollectionRow> {
  const [row] = await q.query<CollectionRow & Record<string, unknown>>(
    `insert into collections (${COLUMNS})
     select r.id, r.project_id, r.name, r.description, r.created_at from jsonb_populate_record(null::collections, $1::jsonb) r
     on conflict (id) do update set project_id = excluded.project_id, name = excluded.name, description = excluded.description, created_at = excluded.created_at
     returning ${COLUMNS}`,
    [JSON.stringify(image)],
  );
  return row!;
}

export async function deleteCollectionRow(q: Queryable, id: string): Promise<void> {
  await q.query(`delete from collections where id = $1`, [id]);
}

/**
 * Whether `name` is a collection of the project (of any project when projectId is null): declared,
 * or holding live nodes (a declaration undone while its nodes stay keeps them reachable).
 */
export async function collectionExists(q: Queryable, projectId: string | null, name: string): Promise<boolean> {
  const [row] = await q.query<{ found: boolean }>(
    `select exists (select 1 from collections where ($1::text is null or project_id = $1) and name = $2)
         or exists (select 1 from nodes where ($1::text is null or project_id = $1) and collection = $2 and deleted_at is null) as found`,
    [projectId, name],
  );
  return row?.found ?? false;
}

/** What one collection holds, from its live nodes (named entities are graph vertices and not counted). */
export interface CollectionFigures {
  project_id: string;
  name: string;
  /** Null for a collection that exists only through its nodes (or the implicit 'default'). */
  id: string | null;
  description: string | null;
  created_at: Date | null;
  /** Live entries other than chunks (memories, summaries, project-knowledge nodes). */
  memories: number;
  chunks: number;
  /** Distinct pushed documents: by source_uri, else by the hash of the pushed text. */
  documents: number;
  /** UTF-8 bytes of the live entries' content. */
  bytes: number;
  last_write_at: Date | null;
}

/** Declared and used collections with their figures, by project then name. */
export async function collectionFigures(q: Queryable, projectId: string | null, name: string | null = null): Promise<CollectionFigures[]> {
  const rows = await q.query<CollectionFigures & Record<string, unknown>>(
    `with used as (
       select project_id, collection as name,
              count(*) filter (where kind <> 'chunk')::int as memories,
              count(*) filter (where kind = 'chunk')::int as chunks,
              count(distinct coalesce(source_uri, metadata->>'document_hash')) filter (where kind = 'chunk')::int as documents,
              coalesce(sum(octet_length(content)), 0)::bigint as bytes,
              max(updated_at) as last_write_at
         from nodes
        where deleted_at is null and kind <> 'entity' and ($1::text is null or project_id = $1) and ($2::text is null or collection = $2)
        group by project_id, collection
     ),
     declared as (
       select ${COLUMNS} from collections where ($1::text is null or project_id = $1) and ($2::text is null or name = $2)
     )
     select coalesce(d.project_id, u.project_id) as project_id, coalesce(d.name, u.name) as name, d.id, d.description, d.created_at,
            coalesce(u.memories, 0) as memories, coalesce(u.chunks, 0) as chunks, coalesce(u.documents, 0) as documents,
            coalesce(u.bytes, 0) as bytes, u.last_write_at
       from declared d full join used u on u.project_id = d.project_id and u.name = d.name
      order by 1, 2`,
    [projectId, name],
  );
  return rows.map((r) => ({ ...r, memories: Number(r.memories), chunks: Number(r.chunks), documents: Number(r.documents), bytes: Number(r.bytes) }));
}

/** The chunk size (tokens) of the newest live chunk that recorded one: what the last push used. */
export async function lastChunkSize(q: Queryable, projectId: string | null, name: string | null): Promise<number | null> {
  const [row] = await q.query<{ size: number | null }>(
    `select (metadata->>'chunk_size')::int as size from nodes
      where kind = 'chunk' and deleted_at is null and metadata->>'chunk_size' is not null
        and ($1::text is null or project_id = $1) and ($2::text is null or collection = $2)
      order by nid desc limit 1`,
    [projectId, name],
  );
  return row?.size ?? null;
}
