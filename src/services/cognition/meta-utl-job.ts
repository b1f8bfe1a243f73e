import { z } from 'zod';
import type { SpaceId } from '../../embed/types.js';
import { defineJob, type JobHandlerContext } from '../../jobs/define.js';
import type { Db } from '../../store/db.js';
import { liveMemoryCount } from '../../store/fingerprints-repo.js';
import { appendMetaLog, fittedLambda, lambdaImage, learningObservations, saveLambda, updateLearning, type LearningObservation } from '../../store/meta-utl-repo.js';
import { writeTransaction } from '../writes.js';
import { recordRun } from '../../store/workspace-repo.js';
import { utlWeight } from '../fingerprints.js';
import { learningMagnitude, stageOf } from '../../utl/utl.js';
import { round4, spearman } from './math.js';

/** Observations meta-UTL reads per project (the newest fingerprinted memories). */
export const OBSERVATIONS = 5_000;
/** Fewer observations than this say nothing about λ. */
export const MIN_OBSERVATIONS = 5;
/** λ_S candidates of the refit (λ_C = 1 − λ_S); the lifecycle defaults 0.3, 0.5, 0.7 are among them. */
export const LAMBDA_GRID = Array.from({ length: 19 }, (_, i) => round4(0.05 * (i + 1)));

export interface LambdaInEffect {
  lambda_s: number;
  lambda_c: number;
  source: 'fitted' | 'lifecycle';
  stage: string;
}

/** The λ the fingerprint job uses for a project now: the refit one, else its lifecycle stage's. */
export async function lambdaInEffect(db: Db, projectId: string): Promise<LambdaInEffect> {
  const fitted = await fittedLambda(db, projectId);
  const stage = stageOf(await liveMemoryCount(db, projectId));
  if (fitted) return { lambda_s: round4(fitted.lambda_s), lambda_c: round4(fitted.lambda_c), source: 'fitted', stage: stage.stage };
  return { lambda_s: stage.lambdaS, lambda_c: stage.lambdaC, source: 'lifecycle', stage: stage.stage };
}

/** L of one stored fingerprint under other λ: its per-space ΔS and ΔC with the job's space weights. */
export function relearn(o: LearningObservation, lambdaS: number): number {
  const perSpace = o.spaces.map((space, i) => ({ surprise: o.surprise[i]!, coherence: o.coherence[i]!, weight: utlWeight(space as SpaceId) }));
  return learningMagnitude(perSpace, 0, { lambdaS, lambdaC: 1 - lambdaS }).learning;
}

/** What L predicted: later retrievals (access count) of each memory. */
export const retrievals = (o: LearningObservation) => o.access_count;

const progress = z.object({ phase: z.enum(['observe', 'fit', 'rewrite']), done: z.number().int().nonnegative(), total: z.number().int().nonnegative() });
const lambdaShape = z.object({ lambda_s: z.number(), lambda_c: z.number(), correlation: z.number().nullable() });

export const lambdaRecalibrationResult = z.object({
  status: z.enum(['recalibrated', 'insufficient_data']),
  observations: z.number().int(),
  before: lambdaShape.extend({ source: z.enum(['fitted', 'lifecycle']) }),
  after: lambdaShape.nullable(),
  grid: z.array(z.object({ lambda_s: z.number(), correlation: z.number().nullable() })),
  rewritten: z.number().int().describe('Fingerprints whose L was recomputed under the new λ.'),
  tx_id: z.number().int().nullable().default(null).describe('The logged transaction of the refit: undo {tx_id} puts the previous λ and L back.'),
  reason: z.string(),
});

/**
 * The `lambda-recalibration` job (meta-UTL): over a project's fingerprinted memories, find the
 * λ_S (λ_C = 1 − λ_S) whose L ranks memories most like their later retrievals (Spearman), store
 * it (the fingerprint job uses it from then on), recompute the stored L, and log before/after.
 */
export const lambdaRecalibrationJob = defineJob({
  type: 'lambda-recalibration',
  payload: z.object({ project_id: z.string().min(1), trigger: z.enum(['tool', 'schedule']), actor: z.string().nullable().default(null) }),
  progress,
  result: lambdaRecalibrationResult,
  attempts: 1,
  async handler(p, { deps, report, jobId }: JobHandlerContext<z.input<typeof progress>, { db: Db }>) {
    const { db } = deps;
    const obs = await learningObservations(db, p.project_id, OBSERVATIONS);
    await report({ phase: 'observe', done: obs.length, total: obs.length });
    const current = await lambdaInEffect(db, p.project_id);
    const y = obs.map(retrievals);
    const before = {
      lambda_s: current.lambda_s,
      lambda_c: current.lambda_c,
      source: current.source,
      correlation: nullable(
        spearman(
          obs.map((o) => o.learning),
          y,
        ),
      ),
    };
    const insufficient = (reason: string) => ({ status: 'insufficient_data' as const, observations: obs.length, before, after: null, grid: [], rewritten: 0, reason });
    if (obs.length < MIN_OBSERVATIONS) return logged(db, p, jobId, insufficient(`${obs.length} fingerprinted memories; at least ${MIN_OBSERVATIONS} are needed`));
    if (new Set(y).size < 2) return logged(db, p, jobId, insufficient('every memory was retrieved equally often: nothing for L to predict yet'));

    const grid: Array<{ lambda_s: number; correlation: number | null }> = [];
    for (const [i, lambdaS] of LAMBDA_GRID.entries()) {
      grid.push({
        lambda_s: lambdaS,
        correlation: nullable(
          spearman(
            obs.map((o) => relearn(o, lambdaS)),
            y,
          ),
        ),
      });
      await report({ phase: 'fit', done: i + 1, total: LAMBDA_GRID.length });
    }
    // Best correlation; among equals the one nearest the λ in effect (no change without evidence).
    const best = grid
      .filter((g) => g.correlation !== null)
      .sort((a, b) => b.correlation! - a.correlation! || Math.abs(a.lambda_s - current.lambda_s) - Math.abs(b.lambda_s - current.lambda_s))[0];
    if (!best) return logged(db, p, jobId, insufficient('L does not vary under any λ'));
    const lambdaC = round4(1 - best.lambda_s);
    const rewrites = obs.map((o) => ({ nid: o.nid, learning: relearn(o, best.lambda_s) }));
    const reason = `λ_S ${before.lambda_s} → ${best.lambda_s}: Spearman(L, retrievals) ${before.correlation ?? 'n/a'} → ${best.correlation} over ${obs.length} memories`;
    // One logged transaction (entity 'signal', lambda:<project>): undo puts the λ and every rewritten L back.
    const nids = rewrites.map((r) => r.nid);
    const committed = await writeTransaction(db, 'lambda_recalibration', { actor: p.actor ?? 'autonomy', rationale: reason }, async (tx, log) => {
      const imageBefore = await lambdaImage(tx, p.project_id, nids);
      await saveLambda(tx, p.project_id, best.lambda_s, lambdaC);
      await updateLearning(tx, rewrites);
      log({ entity: 'signal', entityId: `lambda:${p.project_id}`, before: imageBefore, after: await lambdaImage(tx, p.project_id, nids) });
    });
    await report({ phase: 'rewrite', done: rewrites.length, total: rewrites.length });
    return logged(db, p, jobId, {
      status: 'recalibrated' as const,
      observations: obs.length,
      before,
      after: { lambda_s: best.lambda_s, lambda_c: lambdaC, correlation: best.correlation },
      grid,
      rewritten: rewrites.length,
      tx_id: committed.txId,
      reason,
    });
  },
});

const nullable = (x: number | null) => (x === null ? null : round4(x));

async function logged<T extends z.input<typeof lambdaRecalibrationResult>>(db: Db, p: { project_id: string; trigger: string }, jobId: string, result: T): Promise<T> {
  await appendMetaLog(db, p.project_id, 'lambda_recalibration', { job_id: jobId, trigger: p.trigger, ...result });
  await recordRun(db, {
    service: 'lambda_recalibration',
    projectId: p.project_id,
    jobId,
    trigger: p.trigger,
    result: { status: result.status, before: result.before, after: result.after, observations: result.observations },
  });
  return result;
}
