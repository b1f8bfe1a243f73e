import * as z from 'zod';
import { defineJob, type JobHandlerContext } from '../../jobs/define.js';
import type { Db, Queryable } from '../../store/db.js';
import { notify } from '../../store/locks.js';
import { feedbackObservations, insertAdjustments, lockState, writeState, type Adjustment } from '../../store/signals-repo.js';
import { calibrationMetrics, clampThreshold, DEFAULT_SCORE_THRESHOLD, fitPlatt, IDENTITY, MIN_OBSERVATIONS, thresholdFor, type Observation, type PlattMap } from './calibration.js';
import { levelsOf, readAnchor } from './levels.js';
import { calibrationRate } from './neuromodulation.js';
import { SIGNALS_CHANNEL } from './sync-job.js';
import { logCreated, logState, stateImage } from './undo.js';
import { writeTransaction } from '../writes.js';

export interface CalibrationState {
  /** The `search` default score threshold. */
  score_threshold: number;
  /** Platt map from search score to P(relevant), fitted at the last recalibration. */
  map: PlattMap;
  observations: number;
  /** Where the last fit put the threshold; the threshold moves `rate` of the way there. */
  fitted_threshold: number | null;
  rate: number | null;
  recalibrated_at: string | null;
}

export const CALIBRATION_KEY = 'calibration';
export const INITIAL_CALIBRATION: CalibrationState = {
  score_threshold: DEFAULT_SCORE_THRESHOLD,
  map: IDENTITY,
  observations: 0,
  fitted_threshold: null,
  rate: null,
  recalibrated_at: null,
};

/** Feedback observations a fit reads at most (the newest). */
export const OBSERVATION_WINDOW = 2_000;

export async function readObservations(q: Queryable): Promise<Observation[]> {
  return (await feedbackObservations(q, OBSERVATION_WINDOW)).map((o) => ({ score: Number(o.score), relevant: o.relevant }));
}

const metricsSchema = z.object({ ece: z.number().nullable(), mce: z.number().nullable(), brier: z.number().nullable() });
const recalibrationResult = z.object({
  status: z.enum(['recalibrated', 'insufficient_observations']),
  observations: z.number().int(),
  needed: z.number().int(),
  threshold_before: z.number(),
  threshold_after: z.number(),
  fitted_threshold: z.number().nullable(),
  rate: z.number().nullable(),
  before: metricsSchema,
  after: metricsSchema,
});
export type RecalibrationResult = z.output<typeof recalibrationResult>;

const pick = (m: ReturnType<typeof calibrationMetrics>) => ({ ece: m.ece, mce: m.mce, brier: m.brier });

/**
 * Refits the score → relevance map on the recorded feedback and moves the score threshold
 * towards the score the new map calls a coin flip, at the acetylcholine learning rate. One row
 * lock on the state; the before/after of each change goes to the adjustment log.
 */
export async function runRecalibration(db: Db, opts: { now: number; actor: string | null; jobId: string | null; rationale: string | null }): Promise<RecalibrationResult> {
  const op = 'recalibration';
  const meta = { actor: opts.actor, rationale: opts.rationale };
  const { result } = await writeTransaction(db, op, meta, async (tx, log) => {
    const state = await lockState<CalibrationState>(tx, CALIBRATION_KEY, INITIAL_CALIBRATION);
    const stateBefore = await stateImage(tx, CALIBRATION_KEY);
    const obs = await readObservations(tx);
    const before = calibrationMetrics(obs, state.map);
    const base = { observations: obs.length, needed: MIN_OBSERVATIONS, threshold_before: state.score_threshold, before: pick(before) };
    if (obs.length < MIN_OBSERVATIONS) {
      return { status: 'insufficient_observations' as const, ...base, threshold_after: state.score_threshold, fitted_threshold: null, rate: null, after: pick(before) };
    }
    const map = fitPlatt(obs);
    const fitted = thresholdFor(map);
    const rate = calibrationRate(levelsOf(await readAnchor(tx, opts.now), opts.now).acetylcholine);
    const target = fitted === null ? state.score_threshold : clampThreshold(fitted);
    const next: CalibrationState = {
      score_threshold: clampThreshold(state.score_threshold + rate * (target - state.score_threshold)),
      map,
      observations: obs.length,
      fitted_threshold: fitted === null ? null : target,
      rate,
      recalibrated_at: new Date(opts.now).toISOString(),
    };
    const after = calibrationMetrics(obs, map);
    const why = `${obs.length} feedback observations; ECE ${before.ece?.toFixed(3)} → ${after.ece?.toFixed(3)}`;
    meta.rationale = opts.rationale ?? why;
    const common = { subsystem: 'calibration' as const, source: 'recalibration', actor: opts.actor, rationale: meta.rationale, jobId: opts.jobId };
    const adjustments: Adjustment[] = [
      { ...common, target: 'score_map', before: state.map, after: map },
      { ...common, target: 'score_threshold', before: state.score_threshold, after: next.score_threshold },
    ];
    await writeState(tx, CALIBRATION_KEY, next);
    // One logged transaction: undo puts the map and the threshold back.
    await logState(tx, log, CALIBRATION_KEY, stateBefore);
    logCreated(log, 'adjustment', await insertAdjustments(tx, adjustments));
    await notify(tx, SIGNALS_CHANNEL, CALIBRATION_KEY);
    return { status: 'recalibrated' as const, ...base, threshold_after: next.score_threshold, fitted_threshold: next.fitted_threshold, rate, after: pick(after) };
  });
  return result;
}

const progress = z.object({ done: z.number().int(), total: z.number().int(), message: z.string() });

export const recalibrationJob = defineJob({
  type: 'recalibration',
  payload: z.object({ actor: z.string().nullable().default(null), rationale: z.string().nullable().default(null) }),
  progress,
  result: recalibrationResult,
  async handler(payload, { deps, jobId, report }: JobHandlerContext<z.input<typeof progress>, { db: Db }>) {
    await report({ done: 0, total: 1, message: 'fitting the score map to the recorded feedback' });
    const r = await runRecalibration(deps.db, { now: Date.now(), actor: payload.actor, jobId, rationale: payload.rationale });
    await report({ done: 1, total: 1, message: `${r.status}: threshold ${r.threshold_before.toFixed(3)} → ${r.threshold_after.toFixed(3)}` });
    return r;
  },
});
