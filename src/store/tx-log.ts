import type { Queryable } from './db.js';

/** What the log records images of: nodes, edges, (db/080) collection declarations and (db/120) signal changes. */
export type LoggedEntity = 'node' | 'edge' | 'collection' | 'signal';

export interface TxChange {
  entity: LoggedEntity;
  entityId: string;
  before: unknown;
  after: unknown;
}

/**
 * Records one transaction and its before/after images. Call it inside the same DB transaction
 * as the change itself, so the log and the data can never disagree.
 */
export async function recordTransaction(q: Queryable, op: string, changes: readonly TxChange[], meta: { actor?: string | null; rationale?: string | null } = {}): Promise<number> {
  const [tx] = await q.query<{ tx_id: number }>(`insert into transactions (op, actor, rationale) values ($1, $2, $3) returning tx_id`, [
    op,
    meta.actor ?? null,
    meta.rationale ?? null,
  ]);
  const txId = tx!.tx_id;
  if (changes.length > 0) {
    await q.query(
      `insert into tx_changes (tx_id, ord, entity, entity_id, before, after)
       select $1, c.ord, c.entity, c.entity_id, c.before, c.after
         from unnest($2::int[], $3::text[], $4::text[], $5::jsonb[], $6::jsonb[])
           as c(ord, entity, entity_id, before, after)`,
      [
        txId,
        changes.map((_, i) => i),
        changes.map((c) => c.entity),
        changes.map((c) => c.entityId),
        changes.map((c) => (c.before === undefined || c.before === null ? null : JSON.stringify(c.before))),
        changes.map((c) => (c.after === undefined || c.after === null ? null : JSON.stringify(c.after))),
      ],
    );
  }
  return txId;
}

export interface ImageAsOf {
  entity_id: string;
  tx_id: number;
  image: Record<string, unknown>;
}

/**
 * The state of entities after transaction `asOfTxId`, rebuilt from the log: each entity's latest
 * after-image at or before it. Entities absent at that point (never created, un-created by an
 * undo, or tombstoned unless `includeDeleted`) are left out. Keyset-paged by entity id, so pages
 * stay correct while writes happen.
 */
export async function imagesAsOf(
  q: Queryable,
  entity: 'node' | 'edge',
  asOfTxId: number,
  opts: { afterId?: string | null; ids?: readonly string[] | null; limit: number; includeDeleted?: boolean },
): Promise<ImageAsOf[]> {
  return q.query<ImageAsOf & Record<string, unknown>>(
    `select entity_id, tx_id, image from (
       select distinct on (entity_id) entity_id, tx_id, after as image
         from tx_changes
        where entity = $1 and tx_id <= $2
          and ($3::text is null or entity_id > $3)
          and ($4::text[] is null or entity_id = any($4::text[]))
        order by entity_id, tx_id desc, ord desc
     ) s
     where image is not null and ($6::boolean or image->>'deleted_at' is null)
     order by entity_id
     limit $5`,
    [entity, asOfTxId, opts.afterId ?? null, opts.ids ?? null, opts.limit, opts.includeDeleted ?? false],
  );
}

/** The newest committed tx_id (0 when the log is empty). */
export async function latestTxId(q: Queryable): Promise<number> {
  const [row] = await q.query<{ max: number | null }>(`select max(tx_id) as max from transactions`);
  return row?.max ?? 0;
}

/** One change of a committed transaction, as the change feed announces it. */
export interface TxChangeSummary {
  tx_id: number;
  op: string;
  entity: LoggedEntity;
  entity_id: string;
  deleted: boolean;
  project_id: string | null;
  kind: string | null;
}

/** The changes of the next `txLimit` transactions after `afterTxId`, in commit order. */
export async function changesAfter(q: Queryable, afterTxId: number, txLimit: number): Promise<TxChangeSummary[]> {
  return q.query<TxChangeSummary & Record<string, unknown>>(
    `select t.tx_id, t.op, c.entity, c.entity_id,
            (c.after is null or c.after->>'deleted_at' is not null) as deleted,
            coalesce(c.after->>'project_id', c.before->>'project_id') as project_id,
            coalesce(c.after->>'kind', c.before->>'kind') as kind
       from transactions t join tx_changes c on c.tx_id = t.tx_id
      where t.tx_id in (select tx_id from transactions where tx_id > $1 order by tx_id limit $2)
      order by t.tx_id, c.ord`,
    [afterTxId, txLimit],
  );
}

/** Where the store keeps its tables (the schema a test or deployment chose) and its latest tx_id, in one round trip. */
export async function storeLocation(q: Queryable): Promise<{ schema: string; last_tx_id: number }> {
  const [row] = await q.query<{ schema: string; max: number | null }>(`select current_schema() as schema, (select max(tx_id) from transactions) as max`);
  return { schema: row?.schema ?? 'public', last_tx_id: row?.max ?? 0 };
}
