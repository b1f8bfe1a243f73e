import type { Queryable } from './db.js';

/** A node whose vectors are owed, at the version the outbox row was written for. */
export interface OwedEmbedding {
  nid: number;
  version: number;
}

/**
 * Claims up to `limit` outbox rows whose job is presumed lost: never dispatched and older than
 * `graceMs` (the writer's own enqueue had its chance), or dispatched longer than `leaseMs` ago.
 * SKIP LOCKED so several front ends draining at once never claim the same row; `afterNid` pages
 * through in nid order, so one drain never claims a row twice.
 */
export async function claimOwedEmbeddings(q: Queryable, opts: { graceMs: number; leaseMs: number; limit: number; afterNid: number }): Promise<OwedEmbedding[]> {
  return q.query<{ nid: number; version: number }>(
    `update embedding_outbox o set queued_at = now(), dispatches = o.dispatches + 1
      where o.nid in (select nid from embedding_outbox
                       where nid > $4
                         and ((queued_at is null and created_at < now() - $1 * interval '1 millisecond')
                              or queued_at < now() - $2 * interval '1 millisecond')
                       order by nid limit $3 for update skip locked)
      returning o.nid, o.version`,
    [opts.graceMs, opts.leaseMs, opts.limit, opts.afterNid],
  );
}

/** Gives claimed rows back (the enqueue failed), so the next drain after recovery takes them at once. */
export async function releaseOwedEmbeddings(q: Queryable, nids: readonly number[]): Promise<void> {
  if (nids.length === 0) return;
  await q.query(`update embedding_outbox set queued_at = null, dispatches = greatest(dispatches - 1, 0) where nid = any($1::bigint[])`, [nids]);
}

/** The vectors of these node versions are written (or the node is gone): nothing is owed any more. */
export async function settleOwedEmbeddings(q: Queryable, settled: readonly OwedEmbedding[]): Promise<void> {
  if (settled.length === 0) return;
  await q.query(
    `delete from embedding_outbox o
      using unnest($1::bigint[], $2::int[]) as s(nid, version)
      where o.nid = s.nid and o.version <= s.version`,
    [settled.map((s) => s.nid), settled.map((s) => s.version)],
  );
}

/** Rows still owed and the age of the oldest, for /healthz. */
export async function outboxDepth(q: Queryable): Promise<{ depth: number; oldest_ms: number }> {
  const [row] = await q.query<{ depth: number; oldest_ms: number | null }>(
    `select count(*)::int as depth, (extract(epoch from now() - min(created_at)) * 1000)::float8 as oldest_ms from embedding_outbox`,
  );
  return { depth: row?.depth ?? 0, oldest_ms: Math.round(row?.oldest_ms ?? 0) };
}

/** Whether a node still owes vectors (its embed job has not settled the latest version). */
export async function isEmbeddingOwed(q: Queryable, nid: number): Promise<boolean> {
  const rows = await q.query(`select 1 from embedding_outbox where nid = $1`, [nid]);
  return rows.length > 0;
}

/**
 * Renews the lease of owed rows whose job is known to be queued and alive (a pipelined import's
 * own jobs, waiting in this process): without it, rows older than the lease are presumed lost
 * and dispatched again, and those memories are embedded twice. `aheadMs` dates the lease into
 * the future, for rows whose job is known to wait longer than any lease (the import's second
 * pass): a drain takes them only once that time and a lease have passed.
 */
export async function renewOwedEmbeddings(q: Queryable, nids: readonly number[], aheadMs = 0): Promise<void> {
  if (nids.length === 0) return;
  await q.query(`update embedding_outbox set queued_at = now() + $2 * interval '1 millisecond' where nid = any($1::bigint[])`, [nids, aheadMs]);
}

/** Every node that owes vectors, in nid order: what a crash or a lost job left unembedded. */
export async function owedNids(q: Queryable): Promise<number[]> {
  const rows = await q.query<{ nid: number }>(`select nid from embedding_outbox order by nid`);
  return rows.map((r) => Number(r.nid));
}

/**
 * Per space, the model under which every live node was last found embedded (db/200): while it
 * is still the active one, a node lacks that vector only if it owes it in the outbox.
 */
export async function coveredModels(q: Queryable): Promise<Map<string, string>> {
  const rows = await q.query<{ space: string; model_id: string }>(`select space, model_id from embedding_coverage`);
  return new Map(rows.map((r) => [r.space, r.model_id]));
}

export async function recordCoverage(q: Queryable, space: string, modelId: string): Promise<void> {
  await q.query(
    `insert into embedding_coverage (space, model_id) values ($1, $2)
     on conflict (space) do update set model_id = excluded.model_id, checked_at = now()`,
    [space, modelId],
  );
}
