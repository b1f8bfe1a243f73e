import type { Queryable } from './db.js';
import type { LoggedHit } from './retrieval-log-repo.js';

/** SQL of the learning signals (db/120): state documents, the adjustment log, retrieval outcomes. */

export async function readState<T>(q: Queryable, key: string): Promise<T | null> {
  const [row] = await q.query<{ value: T }>(`select value from signal_state where key = $1`, [key]);
  return row?.value ?? null;
}

/** Reads a state document under a row lock, creating it with `initial` first when absent. */
export async function lockState<T>(q: Queryable, key: string, initial: T): Promise<T> {
  await q.query(`insert into signal_state (key, value) values ($1, $2::jsonb) on conflict (key) do nothing`, [key, JSON.stringify(initial)]);
  const [row] = await q.query<{ value: T }>(`select value from signal_state where key = $1 for update`, [key]);
  return row!.value;
}

export async function writeState(q: Queryable, key: string, value: unknown): Promise<void> {
  await q.query(
    `insert into signal_state (key, value) values ($1, $2::jsonb)
     on conflict (key) do update set value = excluded.value, updated_at = now()`,
    [key, JSON.stringify(value)],
  );
}

export interface Adjustment {
  subsystem: 'sync' | 'neuromodulation' | 'calibration';
  target: string;
  before: unknown;
  after: unknown;
  source: string;
  actor: string | null;
  rationale: string | null;
  jobId?: string | null;
  impulse?: number | null;
}

export interface AdjustmentRow {
  id: number;
  at: Date;
  subsystem: string;
  target: string;
  before: unknown;
  after: unknown;
  source: string;
  actor: string | null;
  rationale: string | null;
  job_id: string | null;
  impulse: number | null;
}

/** Inserts the rows and answers their images (what the transaction log records of each). */
export async function insertAdjustments(q: Queryable, rows: readonly Adjustment[]): Promise<Array<Record<string, unknown> & { id: number }>> {
  if (rows.length === 0) return [];
  return q.query<Record<string, unknown> & { id: number }>(
    `insert into signal_adjustments (subsystem, target, before, after, source, actor, rationale, job_id, impulse)
     select * from unnest($1::text[], $2::text[], $3::jsonb[], $4::jsonb[], $5::text[], $6::text[], $7::text[], $8::text[], $9::float8[])
     returning *`,
    [
      rows.map((r) => r.subsystem),
      rows.map((r) => r.target),
      rows.map((r) => JSON.stringify(r.before ?? null)),
      rows.map((r) => JSON.stringify(r.after ?? null)),
      rows.map((r) => r.source),
      rows.map((r) => r.actor),
      rows.map((r) => r.rationale),
      rows.map((r) => r.jobId ?? null),
      rows.map((r) => r.impulse ?? null),
    ],
  );
}

export async function recentAdjustments(q: Queryable, opts: { subsystem?: string | null; since?: Date | null; limit: number }): Promise<AdjustmentRow[]> {
  const rows = await q.query<AdjustmentRow & Record<string, unknown>>(
    `select id, at, subsystem, target, before, after, source, actor, rationale, job_id, impulse from signal_adjustments
      where ($1::text is null or subsystem = $1) and ($2::timestamptz is null or at >= $2::timestamptz)
      order by id desc limit $3`,
    [opts.subsystem ?? null, opts.since ?? null, opts.limit],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

export interface RetrievalForSync {
  id: number;
  hits: LoggedHit[];
  signal_top: Record<string, number[]>;
}

/** Retrievals after `afterId`, oldest first, but only the newest `limit` of them. */
export async function retrievalsAfter(q: Queryable, afterId: number, limit: number): Promise<RetrievalForSync[]> {
  const rows = await q.query<RetrievalForSync & Record<string, unknown>>(
    `select * from (select id, hits, signal_top from retrieval_log where id > $1 order by id desc limit $2) s order by id`,
    [afterId, limit],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

export async function retrievalsPending(q: Queryable, afterId: number): Promise<{ pending: number; latest: number }> {
  const [row] = await q.query<{ pending: number; latest: number | null }>(`select count(*)::int as pending, max(id) as latest from retrieval_log where id > $1`, [afterId]);
  return { pending: row?.pending ?? 0, latest: Number(row?.latest ?? afterId) };
}

export type OutcomeKind = 'relevant' | 'irrelevant' | 'hydrated';

export interface ShownHit {
  retrieval_id: number;
  score: number;
  rank: number;
}

/**
 * The newest retrieval of this caller (its session, else its actor) that showed the node, within
 * the last `recent` retrievals of that caller; or the given retrieval when it showed it.
 */
export async function retrievalShowing(
  q: Queryable,
  opts: { nodeId: string; sessionId: string | null; actor: string; retrievalId: number | null; recent: number },
): Promise<ShownHit | null> {
  const rows = await q.query<{ id: number; hits: LoggedHit[] }>(
    `select id, hits from (
        select id, hits from retrieval_log
         where ($1::bigint is not null and id = $1)
            or ($1::bigint is null and (case when $2::text is not null then session_id = $2 else actor = $3 end))
         order by id desc limit $4
      ) s
      where hits @> jsonb_build_array(jsonb_build_object('id', $5::text))
      order by id desc limit 1`,
    [opts.retrievalId, opts.sessionId, opts.actor, opts.recent, opts.nodeId],
  );
  const row = rows[0];
  if (!row) return null;
  const rank = row.hits.findIndex((h) => h.id === opts.nodeId);
  return { retrieval_id: Number(row.id), score: row.hits[rank]!.score, rank: rank + 1 };
}

export interface NewOutcome {
  retrievalId: number | null;
  nid: number;
  nodeId: string;
  outcome: OutcomeKind;
  score: number | null;
  rank: number | null;
  sessionId: string | null;
  actor: string;
}

/** Inserts the rows and answers their images (what the transaction log records of each). */
export async function insertOutcomes(q: Queryable, rows: readonly NewOutcome[]): Promise<Array<Record<string, unknown> & { id: number }>> {
  if (rows.length === 0) return [];
  return q.query<Record<string, unknown> & { id: number }>(
    `insert into retrieval_outcomes (retrieval_id, nid, node_id, outcome, score, rank, session_id, actor)
     select * from unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::float8[], $6::int[], $7::text[], $8::text[])
     returning *`,
    [
      rows.map((r) => r.retrievalId),
      rows.map((r) => r.nid),
      rows.map((r) => r.nodeId),
      rows.map((r) => r.outcome),
      rows.map((r) => r.score),
      rows.map((r) => r.rank),
      rows.map((r) => r.sessionId),
      rows.map((r) => r.actor),
    ],
  );
}

export async function outcomesSince(q: Queryable, since: Date): Promise<Array<{ outcome: OutcomeKind; at: Date }>> {
  return q.query<{ outcome: OutcomeKind; at: Date }>(`select outcome, at from retrieval_outcomes where at >= $1 order by id`, [since]);
}

/**
 * Explicit feedback on hits a logged retrieval showed, newest first: the latest verdict per
 * (retrieval, memory), so marking a hit twice counts once.
 */
export async function feedbackObservations(q: Queryable, limit: number): Promise<Array<{ score: number; relevant: boolean; at: Date }>> {
  return q.query<{ score: number; relevant: boolean; at: Date }>(
    `select score, relevant, at from (
        select distinct on (retrieval_id, nid) score, outcome = 'relevant' as relevant, at, id
          from retrieval_outcomes
         where outcome in ('relevant', 'irrelevant') and retrieval_id is not null and score is not null
         order by retrieval_id, nid, id desc
      ) s order by id desc limit $1`,
    [limit],
  );
}

export async function outcomeCounts(q: Queryable): Promise<Array<{ outcome: OutcomeKind; n: number; linked: number; last_at: Date | null }>> {
  return q.query<{ outcome: OutcomeKind; n: number; linked: number; last_at: Date | null }>(
    `select outcome, count(*)::int as n, count(retrieval_id)::int as linked, max(at) as last_at from retrieval_outcomes group by outcome order by outcome`,
  );
}

// Undo of signal changes (the transaction-log entity 'signal'): a row of signal_state,
// signal_adjustments or retrieval_outcomes, read under a row lock, removed or put back as logged.

export type SignalTable = 'signal_state' | 'signal_adjustments' | 'retrieval_outcomes';
const KEY_OF: Record<SignalTable, string> = { signal_state: 'key', signal_adjustments: 'id', retrieval_outcomes: 'id' };

export async function signalRowForUpdate(q: Queryable, table: SignalTable, key: string): Promise<Record<string, unknown> | null> {
  const [row] = await q.query<Record<string, unknown>>(`select * from ${table} where ${KEY_OF[table]}::text = $1 for update`, [key]);
  return row ?? null;
}

export async function deleteSignalRow(q: Queryable, table: SignalTable, key: string): Promise<void> {
  await q.query(`delete from ${table} where ${KEY_OF[table]}::text = $1`, [key]);
}

/** Puts a logged image back (insert or overwrite, keeping its id and timestamps) and answers the row. */
export async function restoreSignalRow(q: Queryable, table: SignalTable, img: Record<string, unknown>): Promise<Record<string, unknown>> {
  const [row] = await q.query<Record<string, unknown>>(
    `insert into ${table} select * from jsonb_populate_record(null::${table}, $1::jsonb)
     on conflict (${KEY_OF[table]}) do update set ${(await columnsOf(q, table))
       .filter((c) => c !== KEY_OF[table])
       .map((c) => `${c} = excluded.${c}`)
       .join(', ')}
     returning *`,
    [JSON.stringify(img)],
  );
  return row!;
}

async function columnsOf(q: Queryable, table: SignalTable): Promise<string[]> {
  const rows = await q.query<{ column_name: string }>(
    `select column_name from information_schema.columns where table_schema = current_schema() and table_name = $1 order by ordinal_position`,
    [table],
  );
  return rows.map((r) => r.column_name);
}
