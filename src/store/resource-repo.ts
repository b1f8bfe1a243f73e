import type { Queryable } from './db.js';
import type { ImageAsOf } from './tx-log.js';

/**
 * Reads behind the MCP resources. Everything that pages is read "as of" a transaction, from the
 * log's after-images, and keyset-paged by a unique key, so a cursor taken at the first page keeps
 * its snapshot while writes happen between pages.
 */

/** Graph entities (named subjects/objects of triples) are nodes too, but not memory entries. */
const ENTITY_KIND = 'entity';

/**
 * Live entry images (not graph entities) after `asOfTxId`, optionally filtered by project and
 * topic. The topic matches whole, in any case, as `query {topic}` does: a URI a tool hands out
 * must read back the same entries the tool found.
 */
export async function nodeImagesAsOf(
  q: Queryable,
  asOfTxId: number,
  opts: { afterId?: string | null; limit: number; projectId?: string | null; topic?: string | null },
): Promise<ImageAsOf[]> {
  return q.query<ImageAsOf & Record<string, unknown>>(
    `select entity_id, tx_id, image from (
       select distinct on (entity_id) entity_id, tx_id, after as image
         from tx_changes
        where entity = 'node' and tx_id <= $1
          and ($2::text is null or entity_id > $2)
        order by entity_id, tx_id desc, ord desc
     ) s
     where image is not null and image->>'deleted_at' is null
       and coalesce(image->>'kind', 'memory') <> 'entity'
       and ($4::text is null or image->>'project_id' = $4)
       and ($5::text is null or lower(image->>'topic') = lower($5))
     order by entity_id
     limit $3`,
    [asOfTxId, opts.afterId ?? null, opts.limit, opts.projectId ?? null, opts.topic ?? null],
  );
}

const LIVE_NODES_AS_OF = `
  select image from (
    select distinct on (entity_id) after as image
      from tx_changes
     where entity = 'node' and tx_id <= $1
     order by entity_id, tx_id desc, ord desc
  ) s
  where image is not null and image->>'deleted_at' is null
    and coalesce(image->>'kind', 'memory') <> 'entity'`;

export interface ProjectRow {
  project_id: string;
  entries: number;
  last_updated: string | null;
}

/** Projects with at least one live entry after `asOfTxId`, by project_id. */
export async function projectsAsOf(q: Queryable, asOfTxId: number, opts: { afterId?: string | null; limit: number }): Promise<ProjectRow[]> {
  return q.query<ProjectRow & Record<string, unknown>>(
    `select image->>'project_id' as project_id, count(*)::int as entries, max(image->>'updated_at') as last_updated
       from (${LIVE_NODES_AS_OF}) live
      where ($2::text is null or image->>'project_id' > $2)
      group by 1
      order by 1
      limit $3`,
    [asOfTxId, opts.afterId ?? null, opts.limit],
  );
}

export interface TagRow {
  tag: string;
  entries: number;
}

/** Distinct tags of a project's live entries after `asOfTxId`, by tag. */
export async function projectTagsAsOf(q: Queryable, asOfTxId: number, projectId: string, opts: { afterId?: string | null; limit: number }): Promise<TagRow[]> {
  return q.query<TagRow & Record<string, unknown>>(
    `select t.tag, count(*)::int as entries
       from (${LIVE_NODES_AS_OF}) live
       cross join lateral jsonb_array_elements_text(coalesce(live.image->'tags', '[]'::jsonb)) as t(tag)
      where live.image->>'project_id' = $2
        and ($3::text is null or t.tag > $3)
      group by 1
      order by 1
      limit $4`,
    [asOfTxId, projectId, opts.afterId ?? null, opts.limit],
  );
}

export interface TransactionRow {
  tx_id: number;
  op: string;
  actor: string | null;
  rationale: string | null;
  created_at: Date;
  reverted_by: number | null;
  changes: number;
}

/** Transactions at or before `asOfTxId`, newest first, keyset on tx_id. */
export async function transactionsPage(q: Queryable, asOfTxId: number, opts: { beforeTxId?: number | null; limit: number }): Promise<TransactionRow[]> {
  return q.query<TransactionRow & Record<string, unknown>>(
    `select t.tx_id, t.op, t.actor, t.rationale, t.created_at, t.reverted_by,
            (select count(*)::int from tx_changes c where c.tx_id = t.tx_id) as changes
       from transactions t
      where t.tx_id <= $1 and ($2::bigint is null or t.tx_id < $2)
      order by t.tx_id desc
      limit $3`,
    [asOfTxId, opts.beforeTxId ?? null, opts.limit],
  );
}

/** Ids of live entries starting with `prefix` (completion). */
export async function entryIdsWithPrefix(q: Queryable, prefix: string, limit: number): Promise<string[]> {
  const rows = await q.query<{ id: string }>(`select id from nodes where deleted_at is null and kind <> $3 and id ilike $1 escape '\\' order by id limit $2`, [
    `${escapeLike(prefix)}%`,
    limit,
    ENTITY_KIND,
  ]);
  return rows.map((r) => r.id);
}

/** Project ids of live entries starting with `prefix` (completion). */
export async function projectIdsWithPrefix(q: Queryable, prefix: string, limit: number): Promise<string[]> {
  const rows = await q.query<{ project_id: string }>(
    `select distinct project_id from nodes where deleted_at is null and kind <> $3 and project_id like $1 escape '\\' order by project_id limit $2`,
    [`${escapeLike(prefix)}%`, limit, ENTITY_KIND],
  );
  return rows.map((r) => r.project_id);
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}
