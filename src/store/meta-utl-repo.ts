import type { Queryable } from './db.js';
import { asReal } from './real.js';

/** A fingerprinted live memory with what happened to it afterwards (meta-UTL's observation). */
export interface LearningObservation {
  nid: number;
  spaces: string[];
  surprise: number[];
  coherence: number[];
  learning: number;
  stage: string;
  access_count: number;
}

/** A project's fingerprinted live memories with their later access counts. */
export async function learningObservations(q: Queryable, projectId: string, limit: number): Promise<LearningObservation[]> {
  const rows = await q.query<LearningObservation & Record<string, unknown>>(
    `select f.node_nid as nid, f.spaces, f.surprise, f.coherence, f.learning, f.stage, coalesce(t.access_count, 0) as access_count
       from fingerprints f join nodes n on n.nid = f.node_nid left join node_access_totals t on t.node_id = n.id
      where f.project_id = $1 and n.deleted_at is null and n.kind = 'memory'
      order by f.node_nid desc limit $2`,
    [projectId, limit],
  );
  return rows.map((r) => ({
    ...r,
    nid: Number(r.nid),
    surprise: r.surprise.map(Number),
    coherence: r.coherence.map(Number),
    learning: Number(r.learning),
    access_count: Number(r.access_count),
  }));
}

/** Rewrites L of fingerprints after a λ refit (derived data: not in the transaction log). */
export async function updateLearning(q: Queryable, rows: ReadonlyArray<{ nid: number; learning: number }>): Promise<void> {
  if (rows.length === 0) return;
  await q.query(`update fingerprints f set learning = r.learning from unnest($1::bigint[], $2::float8[]) as r(nid, learning) where f.node_nid = r.nid`, [
    rows.map((r) => r.nid),
    rows.map((r) => asReal(r.learning, 'fingerprints.learning')),
  ]);
}

export interface LambdaRow {
  lambda_s: number;
  lambda_c: number;
  fitted_at: Date;
}

/** The refit λ of a project, if meta-UTL recalibrated it. */
export async function fittedLambda(q: Queryable, projectId: string): Promise<LambdaRow | null> {
  const [r] = await q.query<LambdaRow & Record<string, unknown>>(`select lambda_s, lambda_c, fitted_at from utl_lambdas where project_id = $1`, [projectId]);
  return r ? { lambda_s: Number(r.lambda_s), lambda_c: Number(r.lambda_c), fitted_at: r.fitted_at } : null;
}

export async function saveLambda(q: Queryable, projectId: string, lambdaS: number, lambdaC: number): Promise<void> {
  await q.query(
    `insert into utl_lambdas (project_id, lambda_s, lambda_c) values ($1, $2, $3)
     on conflict (project_id) do update set lambda_s = excluded.lambda_s, lambda_c = excluded.lambda_c, fitted_at = now()`,
    [projectId, asReal(lambdaS, 'utl_lambdas.lambda_s'), asReal(lambdaC, 'utl_lambdas.lambda_c')],
  );
}

export interface MetaLogRow {
  id: number;
  project_id: string;
  event: string;
  details: Record<string, unknown>;
  created_at: Date;
}

export async function appendMetaLog(q: Queryable, projectId: string, event: string, details: Record<string, unknown>): Promise<void> {
  await q.query(`insert into meta_learning_log (project_id, event, details) values ($1, $2, $3::jsonb)`, [projectId, event, JSON.stringify(details)]);
}

/** Newest first; `beforeId` pages back. */
export async function metaLog(q: Queryable, projectId: string | null, limit: number, beforeId: number | null): Promise<MetaLogRow[]> {
  const rows = await q.query<MetaLogRow & Record<string, unknown>>(
    `select id, project_id, event, details, created_at from meta_learning_log
      where ($1::text is null or project_id = $1) and ($3::bigint is null or id < $3) order by id desc limit $2`,
    [projectId, limit, beforeId],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

/** The refit λ of a project and the stored L of the given memories, under row locks (what the log records of a refit). */
export async function lambdaImage(q: Queryable, projectId: string, nids: readonly number[]) {
  const [row] = await q.query<{ lambda_s: number; lambda_c: number; fitted_at: Date } & Record<string, unknown>>(
    `select lambda_s, lambda_c, fitted_at from utl_lambdas where project_id = $1 for update`,
    [projectId],
  );
  const ls = await q.query<{ nid: number; learning: number }>(
    `select node_nid as nid, learning from fingerprints where node_nid = any($1::bigint[]) order by node_nid for update`,
    [[...nids]],
  );
  return {
    project_id: projectId,
    lambda_s: row ? Number(row.lambda_s) : null,
    lambda_c: row ? Number(row.lambda_c) : null,
    fitted_at: row ? row.fitted_at.toISOString() : null,
    learning: ls.map((r) => [Number(r.nid), Number(r.learning)] as [number, number]),
  };
}

/** Puts a logged λ image back: the row (absent when λ_S is null: the lifecycle λ again) and the L values. */
export async function restoreLambda(
  q: Queryable,
  img: { project_id: string; lambda_s: number | null; lambda_c: number | null; fitted_at: string | null; learning: Array<[number, number]> },
): Promise<void> {
  if (img.lambda_s === null || img.lambda_c === null) await q.query(`delete from utl_lambdas where project_id = $1`, [img.project_id]);
  else
    await q.query(
      `insert into utl_lambdas (project_id, lambda_s, lambda_c, fitted_at) values ($1, $2, $3, $4)
       on conflict (project_id) do update set lambda_s = excluded.lambda_s, lambda_c = excluded.lambda_c, fitted_at = excluded.fitted_at`,
      [img.project_id, asReal(img.lambda_s, 'utl_lambdas.lambda_s'), asReal(img.lambda_c, 'utl_lambdas.lambda_c'), img.fitted_at],
    );
  await updateLearning(
    q,
    img.learning.map(([nid, learning]) => ({ nid, learning })),
  );
}
