import type { Queryable } from './db.js';
import { fromBytes } from './vector-bytes.js';
import { asReal, realArray } from './real.js';

/** One stored vector of one node in one space. */
export interface StoredVector {
  nid: number;
  space: string;
  model_id: string;
  vector: Float32Array;
}

type VectorRow = { node_nid: number; space: string; model_id: string; dim: number; vector: Uint8Array };
const toStored = (r: VectorRow): StoredVector => ({ nid: Number(r.node_nid), space: r.space, model_id: r.model_id, vector: fromBytes(r.vector, r.dim) });

/** Every live vector of the given nodes, all spaces. */
export async function vectorsOfNodes(q: Queryable, nids: readonly number[]): Promise<StoredVector[]> {
  if (nids.length === 0) return [];
  const rows = await q.query<VectorRow>(`select node_nid, space, model_id, dim, vector from embeddings where node_nid = any($1::bigint[]) and vector is not null`, [nids]);
  return rows.map(toStored);
}

/** Live memories per project (the UTL lifecycle counts them). */
export async function liveMemoryCount(q: Queryable, projectId: string): Promise<number> {
  const [row] = await q.query<{ n: number }>(`select count(*)::int as n from nodes where project_id = $1 and deleted_at is null`, [projectId]);
  return Number(row?.n ?? 0);
}

/**
 * Per live node of the project with a nid in [lo, hi]: how many live memories the project holds
 * up to and including it, counted no further than `cap` (the lifecycle stage does not change
 * past its last threshold, and an exact count scanned the project on every fingerprint job).
 * Counted from `from` (a count below a nid ≤ lo, from the previous batch) rather than from the
 * start, so a job walking a large project counts each node once.
 */
export async function liveMemoriesUpTo(
  q: Queryable,
  projectId: string,
  lo: number,
  hi: number,
  from: { nid: number; below: number } | null,
  cap: number,
): Promise<Map<number, number>> {
  const start = from && from.nid <= lo ? from : { nid: 0, below: 0 };
  const rows = await q.query<{ nid: number; n: number }>(
    `with base as materialized (
       select count(*)::int as c from (
         select 1 from nodes where project_id = $1 and deleted_at is null and nid >= $4 and nid < $2 order by nid limit $6) s)
     select nid, least($6, $5 + base.c + row_number() over (order by nid))::int as n
       from nodes, base where project_id = $1 and deleted_at is null and nid between $2 and $3`,
    [projectId, lo, hi, start.nid, Math.min(start.below, cap), cap],
  );
  return new Map(rows.map((r) => [Number(r.nid), Number(r.n)]));
}

/** Live edges touching each node (connectivity). */
export async function edgeCountsByNid(q: Queryable, nids: readonly number[]): Promise<Map<number, number>> {
  if (nids.length === 0) return new Map();
  const rows = await q.query<{ nid: number; n: number }>(
    `select n.nid, count(e.id)::int as n from nodes n
       left join edges e on (e.src = n.id or e.dst = n.id) and e.deleted_at is null
      where n.nid = any($1::bigint[]) group by n.nid`,
    [nids],
  );
  return new Map(rows.map((r) => [Number(r.nid), Number(r.n)]));
}

export interface DistanceStatsRow {
  space: string;
  n: number;
  mean: number;
  m2: number;
}

/** Locks and reads a project's k-NN distance moments, so two jobs never lose each other's samples. */
/** The moments as they are now, without a lock; a space with no row yet has none (n = 0). */
export async function readDistanceStats(q: Queryable, projectId: string, spaces: readonly string[]): Promise<Map<string, DistanceStatsRow>> {
  const rows = await q.query<DistanceStatsRow & Record<string, unknown>>(
    `select space, n::float8 as n, mean, m2 from space_distance_stats where project_id = $1 and space = any($2::text[])`,
    [projectId, spaces],
  );
  const read = new Map(rows.map((r) => [r.space, { space: r.space, n: Number(r.n), mean: Number(r.mean), m2: Number(r.m2) }]));
  return new Map(spaces.map((space) => [space, read.get(space) ?? { space, n: 0, mean: 0, m2: 0 }]));
}

export async function lockDistanceStats(tx: Queryable, projectId: string, spaces: readonly string[]): Promise<Map<string, DistanceStatsRow>> {
  await tx.query(`insert into space_distance_stats (project_id, space) select $1, s from unnest($2::text[]) as s on conflict do nothing`, [projectId, spaces]);
  const rows = await tx.query<DistanceStatsRow & Record<string, unknown>>(
    `select space, n::float8 as n, mean, m2 from space_distance_stats where project_id = $1 and space = any($2::text[]) order by space for update`,
    [projectId, spaces],
  );
  return new Map(rows.map((r) => [r.space, { space: r.space, n: Number(r.n), mean: Number(r.mean), m2: Number(r.m2) }]));
}

export async function writeDistanceStats(tx: Queryable, projectId: string, rows: readonly DistanceStatsRow[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(
    `update space_distance_stats s set n = r.n, mean = r.mean, m2 = r.m2
       from unnest($2::text[], $3::float8[], $4::float8[], $5::float8[]) as r(space, n, mean, m2)
      where s.project_id = $1 and s.space = r.space`,
    [projectId, rows.map((r) => r.space), rows.map((r) => r.n), rows.map((r) => r.mean), rows.map((r) => r.m2)],
  );
}

export interface FingerprintRow {
  node_nid: number;
  project_id: string;
  model_key: string;
  spaces: string[];
  purpose: number[];
  surprise: number[];
  coherence: number[];
  johari: string[];
  learning: number;
  stage: string;
  computed_at: Date;
}

/** Writes a batch of fingerprints in one statement (the job computes them a batch at a time). */
export async function upsertFingerprints(tx: Queryable, rows: ReadonlyArray<Omit<FingerprintRow, 'computed_at'>>): Promise<void> {
  if (rows.length === 0) return;
  const params: unknown[] = [];
  const p = (value: unknown) => `$${params.push(value)}`;
  const values = rows.map(
    (f) =>
      `(${p(f.node_nid)}::bigint, ${p(f.project_id)}, ${p(f.model_key)}, ${p(f.spaces)}::text[], ${p(realArray(f.purpose, 'fingerprints.purpose'))}::real[], ${p(realArray(f.surprise, 'fingerprints.surprise'))}::real[], ${p(realArray(f.coherence, 'fingerprints.coherence'))}::real[], ${p(f.johari)}::text[], ${p(asReal(f.learning, 'fingerprints.learning'))}::real, ${p(f.stage)})`,
  );
  await tx.query(
    `insert into fingerprints (node_nid, project_id, model_key, spaces, purpose, surprise, coherence, johari, learning, stage)
     values ${values.join(', ')}
     on conflict (node_nid) do update set project_id = excluded.project_id, model_key = excluded.model_key, spaces = excluded.spaces,
       purpose = excluded.purpose, surprise = excluded.surprise, coherence = excluded.coherence, johari = excluded.johari,
       learning = excluded.learning, stage = excluded.stage, computed_at = now()`,
    params,
  );
}

export async function fingerprintsByNid(q: Queryable, nids: readonly number[]): Promise<FingerprintRow[]> {
  if (nids.length === 0) return [];
  const rows = await q.query<FingerprintRow & Record<string, unknown>>(`select * from fingerprints where node_nid = any($1::bigint[])`, [nids]);
  return rows.map((r) => ({ ...r, node_nid: Number(r.node_nid), learning: Number(r.learning) }));
}

/** Fingerprints of a project's live memories (or every project's), for status and distributions. */
export async function liveFingerprints(q: Queryable, projectId: string | null, limit: number): Promise<FingerprintRow[]> {
  const rows = await q.query<FingerprintRow & Record<string, unknown>>(
    `select f.* from fingerprints f join nodes n on n.nid = f.node_nid
      where n.deleted_at is null and ($1::text is null or f.project_id = $1) order by f.node_nid desc limit $2`,
    [projectId, limit],
  );
  return rows.map((r) => ({ ...r, node_nid: Number(r.node_nid), learning: Number(r.learning) }));
}

/**
 * Owes a fingerprint for these nodes (the embed job, once their vectors are written): the
 * fingerprint job drains what is owed instead of scanning each project for what is missing.
 */
export async function oweFingerprints(q: Queryable, nids: readonly number[]): Promise<void> {
  if (nids.length === 0) return;
  await q.query(
    `insert into fingerprint_outbox (nid, project_id)
     select nid, project_id from nodes where nid = any($1::bigint[]) and deleted_at is null
     on conflict (nid) do nothing`,
    [nids],
  );
}

/**
 * Owes a fingerprint for every live memory whose fingerprint was computed under another model
 * key (a space added, removed or swapped); answers the projects that now owe any. One scan of
 * the fingerprints, at start-up only.
 */
export async function oweStaleFingerprints(q: Queryable, modelKey: string): Promise<string[]> {
  await q.query(
    `insert into fingerprint_outbox (nid, project_id)
     select f.node_nid, f.project_id from fingerprints f where f.model_key <> $1
     on conflict (nid) do nothing`,
    [modelKey],
  );
  const rows = await q.query<{ project_id: string }>(`select distinct project_id from fingerprint_outbox`);
  return rows.map((r) => r.project_id);
}

/** The oldest `limit` nids a project owes a fingerprint for, after `after`. */
export async function owedFingerprints(q: Queryable, projectId: string, limit: number, after = 0): Promise<number[]> {
  const rows = await q.query<{ nid: number }>(`select nid from fingerprint_outbox where project_id = $1 and nid > $3 order by nid limit $2`, [projectId, limit, after]);
  return rows.map((r) => Number(r.nid));
}

/** Of owed nids, those still live, embedded and without a fingerprint under `modelKey`: the ones to compute. */
export async function nidsNeedingFingerprint(q: Queryable, nids: readonly number[], modelKey: string): Promise<number[]> {
  if (nids.length === 0) return [];
  const rows = await q.query<{ nid: number }>(
    `select n.nid from nodes n
      where n.nid = any($1::bigint[]) and n.deleted_at is null
        and (select f.model_key from fingerprints f where f.node_nid = n.nid) is distinct from $2
        and exists (select 1 from embeddings e where e.node_nid = n.nid and e.vector is not null)
      order by n.nid`,
    [nids, modelKey],
  );
  return rows.map((r) => Number(r.nid));
}

/** Clears what is owed for these nids (computed, or no longer needing it). */
export async function settleFingerprints(q: Queryable, nids: readonly number[]): Promise<void> {
  if (nids.length === 0) return;
  await q.query(`delete from fingerprint_outbox where nid = any($1::bigint[])`, [nids]);
}

/** The nids of a project's `limit` most recent live memories written before `beforeNid` (no vectors: cheap). */
export async function earlierProjectNids(q: Queryable, opts: { projectId: string; beforeNid: number; limit: number }): Promise<number[]> {
  const rows = await q.query<{ nid: number }>(`select nid from nodes where project_id = $1 and nid < $2 and deleted_at is null order by nid desc limit $3`, [
    opts.projectId,
    opts.beforeNid,
    opts.limit,
  ]);
  return rows.map((r) => Number(r.nid));
}

/** A project's k-NN distance moments per space, read without a lock (what a read-only measure scales ΔS by). */
export async function distanceStatsOf(q: Queryable, projectId: string): Promise<Map<string, DistanceStatsRow>> {
  const rows = await q.query<DistanceStatsRow & Record<string, unknown>>(`select space, n::float8 as n, mean, m2 from space_distance_stats where project_id = $1`, [projectId]);
  return new Map(rows.map((r) => [r.space, { space: r.space, n: Number(r.n), mean: Number(r.mean), m2: Number(r.m2) }]));
}
