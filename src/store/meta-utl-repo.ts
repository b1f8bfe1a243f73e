import type { Queryable } from './db.js';

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
    `select f.node_nid as nid, f.spaces, f.surprise, f.coherence, f.learning, f.stage, n.access_count
       from fingerprints f join nodes n on n.nid = f.node_nid
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
    rows.map((r) => r.learning),
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
    [projectId, lambdaS, lambdaC],
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
