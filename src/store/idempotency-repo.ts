import type { Queryable } from './db.js';

/** One client-chosen key of one tool: the write it made and, once answered, the answer. */
export interface IdempotencyRecord {
  tx_id: number | null;
  entity_id: string | null;
  /** Null for keys recorded before arguments were hashed (db/061): they match any arguments. */
  args_hash: string | null;
  call_id: string | null;
  result: Record<string, unknown> | null;
  created_at: Date;
}

export interface KeyClaim {
  tool: string;
  key: string;
  argsHash: string;
  callId: string;
}

export async function idempotencyRecord(q: Queryable, tool: string, key: string): Promise<IdempotencyRecord | null> {
  const [row] = await q.query<IdempotencyRecord & Record<string, unknown>>(
    `select tx_id, entity_id, args_hash, call_id, result, created_at from idempotency_keys where tool = $1 and key = $2`,
    [tool, key],
  );
  return row ?? null;
}

/**
 * Inside a write's transaction: claims the key for this call. Answers the call id that holds it;
 * another call's id means a concurrent first use committed first (on Postgres this insert waits
 * for that transaction, so the answer is final).
 */
export async function claimIdempotencyKey(q: Queryable, claim: KeyClaim, write: { txId: number; entityId: string | null }): Promise<string> {
  const inserted = await q.query<{ call_id: string }>(
    `insert into idempotency_keys (tool, key, tx_id, entity_id, args_hash, call_id) values ($1, $2, $3, $4, $5, $6)
     on conflict (tool, key) do nothing returning call_id`,
    [claim.tool, claim.key, write.txId, write.entityId, claim.argsHash, claim.callId],
  );
  if (inserted[0]) return inserted[0].call_id;
  const [holder] = await q.query<{ call_id: string | null }>(`select call_id from idempotency_keys where tool = $1 and key = $2`, [claim.tool, claim.key]);
  return holder?.call_id ?? '';
}

/**
 * The answer of a call, once sent. A call that wrote nothing through a transaction here (its
 * job ran on a worker) inserts its row now; a key whose first answer was lost gets this one.
 */
export async function saveIdempotentResult(q: Queryable, claim: KeyClaim, result: Record<string, unknown>): Promise<void> {
  await q.query(
    `insert into idempotency_keys (tool, key, tx_id, entity_id, args_hash, call_id, result) values ($1, $2, null, null, $3, $4, $5::jsonb)
     on conflict (tool, key) do update set result = excluded.result, call_id = excluded.call_id where idempotency_keys.result is null`,
    [claim.tool, claim.key, claim.argsHash, claim.callId, JSON.stringify(result)],
  );
}
