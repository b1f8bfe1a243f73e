import { SPACES } from '../../embed/spaces/registry.js';
import type { Db } from '../../store/db.js';
import { outcomeCounts, readState, recentAdjustments, retrievalsPending, type AdjustmentRow } from '../../store/signals-repo.js';
import { NEAR_DUPLICATE_SIMILARITY } from '../memory.js';
import { SIGNAL_WEIGHTS } from '../search.js';
import { applyMap, calibrationMetrics, DEFAULT_SCORE_THRESHOLD, eceStatus, IDENTITY, MIN_OBSERVATIONS, THRESHOLD_RANGE } from './calibration.js';
import { inSync, KURAMOTO, orderParameter, syncFactor, syncedWeights } from './kuramoto.js';
import { levelsOf, readAnchor } from './levels.js';
import { BASELINE, effectOf, MODULATORS, MODULATOR_SPECS, weightSpread, type Modulator } from './neuromodulation.js';
import { CALIBRATION_KEY, INITIAL_CALIBRATION, readObservations, type CalibrationState } from './recalibration.js';
import { factorsOf, INITIAL_KURAMOTO, KURAMOTO_KEY, type KuramotoState } from './sync-job.js';

/** Read models of the signals for their tools: every number from the stored state, outcomes and adjustments. */

export type OscillatorStatus = 'in_sync' | 'out_of_sync' | 'no_evidence' | 'unweighted' | 'planned';

export async function kuramotoReport(db: Db, now: number) {
  const state = (await readState<KuramotoState>(db, KURAMOTO_KEY)) ?? INITIAL_KURAMOTO;
  const { pending } = await retrievalsPending(db, state.cursor);
  const serotonin = levelsOf(await readAnchor(db, now), now).serotonin;
  const weights = syncedWeights(SIGNAL_WEIGHTS, factorsOf(state), weightSpread(serotonin));
  const oscillators = SPACES.map((s) => {
    const o = state.oscillators[s.signal];
    const base = SIGNAL_WEIGHTS[s.signal];
    // Spaces without evidence have no phase: a planned space is never searched, an unweighted one
    // is not fused by default (so the log holds none of its lists) until a profile weights it.
    const status: OscillatorStatus = o ? (inSync(o.coherence) ? 'in_sync' : 'out_of_sync') : s.status === 'planned' ? 'planned' : !base ? 'unweighted' : 'no_evidence';
    return {
      space: s.id,
      signal: s.signal,
      status,
      phase: o?.phase ?? null,
      agreement: o?.agreement ?? null,
      steps: o?.steps ?? 0,
      coherence: o ? Math.hypot(...o.coherence) : null,
      sync_factor: o ? syncFactor(o.coherence) : null,
      base_weight: base ?? 0,
      weight: weights[s.signal] ?? 0,
    };
  });
  const order = orderParameter(Object.values(state.oscillators).map((o) => o.phase));
  return {
    coupling: state.coupling,
    coupling_range: { min: KURAMOTO.minCoupling, max: KURAMOTO.maxCoupling },
    r: order?.r ?? null,
    psi: order?.psi ?? null,
    oscillators_with_phase: Object.keys(state.oscillators).length,
    steps: state.steps,
    stepped_at: state.stepped_at,
    pending_retrievals: pending,
    weight_spread: weightSpread(serotonin),
    oscillators,
  };
}

export async function neuromodulationReport(db: Db, now: number, only?: Modulator) {
  const levels = levelsOf(await readAnchor(db, now), now);
  return (only ? [only] : [...MODULATORS]).map((m) => ({
    modulator: m,
    level: levels[m],
    baseline: BASELINE,
    half_life_minutes: MODULATOR_SPECS[m].halfLifeMs / 60_000,
    driven_by: MODULATOR_SPECS[m].drivenBy,
    modulates: MODULATOR_SPECS[m].modulates,
    effect: effectOf(m, levels[m]),
  }));
}

async function calibrationState(db: Db): Promise<CalibrationState> {
  return (await readState<CalibrationState>(db, CALIBRATION_KEY)) ?? INITIAL_CALIBRATION;
}

export async function thresholdReport(db: Db) {
  const state = await calibrationState(db);
  const observations = (await readObservations(db)).length;
  return [
    {
      name: 'score_threshold',
      value: state.score_threshold,
      default: DEFAULT_SCORE_THRESHOLD,
      range: { min: THRESHOLD_RANGE.min, max: THRESHOLD_RANGE.max },
      calibrated: state.recalibrated_at !== null,
      calibrated_at: state.recalibrated_at,
      observations,
      fitted_value: state.fitted_threshold,
      used_by: 'search (when score_threshold is not given)',
      source: 'relevance feedback on shown hits (record_feedback), Platt-fitted by trigger_recalibration',
    },
    {
      name: 'near_duplicate_similarity',
      value: NEAR_DUPLICATE_SIMILARITY,
      default: NEAR_DUPLICATE_SIMILARITY,
      range: { min: NEAR_DUPLICATE_SIMILARITY, max: NEAR_DUPLICATE_SIMILARITY },
      calibrated: false,
      calibrated_at: null,
      observations: 0,
      fitted_value: null,
      used_by: 'store (possible_duplicates)',
      source: 'static: no outcome of a flagged duplicate (merged or kept) is recorded yet',
    },
  ];
}

export async function calibrationReport(db: Db) {
  const state = await calibrationState(db);
  const obs = await readObservations(db);
  const raw = calibrationMetrics(obs, IDENTITY);
  const calibrated = calibrationMetrics(obs, state.map);
  return {
    observations: obs.length,
    needed: MIN_OBSERVATIONS,
    relevant: obs.filter((o) => o.relevant).length,
    map: state.map,
    raw: { ece: raw.ece, mce: raw.mce, brier: raw.brier },
    calibrated: { ece: calibrated.ece, mce: calibrated.mce, brier: calibrated.brier, bins: calibrated.bins },
    status: eceStatus(calibrated.ece),
    recalibrated_at: state.recalibrated_at,
    score_threshold: state.score_threshold,
    relevance_at_threshold: applyMap(state.map, state.score_threshold),
  };
}

const changeOf = (a: AdjustmentRow) => ({
  at: a.at.toISOString(),
  subsystem: a.subsystem,
  target: a.target,
  before: a.before,
  after: a.after,
  source: a.source,
  actor: a.actor,
  rationale: a.rationale,
});

export async function steeringReport(db: Db, now: number, limit: number) {
  const counts = await outcomeCounts(db);
  const count = (k: string) => counts.find((c) => c.outcome === k)?.n ?? 0;
  const relevant = count('relevant');
  const irrelevant = count('irrelevant');
  const levels = levelsOf(await readAnchor(db, now), now);
  const calibration = await calibrationState(db);
  const learned = await recentAdjustments(db, { limit });
  return {
    feedback: {
      relevant,
      irrelevant,
      hydrated: count('hydrated'),
      linked_to_retrievals: counts.reduce((s, c) => s + c.linked, 0),
      precision: relevant + irrelevant > 0 ? relevant / (relevant + irrelevant) : null,
      last_at: counts.reduce<Date | null>((m, c) => (c.last_at && (!m || c.last_at > m) ? c.last_at : m), null)?.toISOString() ?? null,
    },
    // Dopamine's distance from its baseline is the reward the recent outcomes add up to.
    reward: levels.dopamine - BASELINE,
    state: {
      score_threshold: calibration.score_threshold,
      default_score_threshold: DEFAULT_SCORE_THRESHOLD,
      modulators: levels,
    },
    changes: learned.map(changeOf),
  };
}
