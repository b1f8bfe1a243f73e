import type { Queryable } from './db.js';

export interface TxChange {
  entity: 'node' | 'edge';
  entityId: string;
  before: unknown;
  after: unknown;
}

/**
 * Records one transaction and its before/after images. Call it inside the same DB transaction
 * as the change itself, so the log and the data can never disagree.
 */
export async function recordTransaction(
  q: Queryable,
  op: string,
  changes: readonly TxChange[],
  meta: { actor?: string | null; rationale?: string | null } = {},
): Promise<number> {
  const [tx] = await q.query<{ tx_id: number }>(
    `insert into transactions (op, actor, rationale) values ($1, $2, $3) returning tx_id`,
    [op, meta.actor ?? null, meta.rationale ?? null],
  );
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
