/**
 * Four neuromodulators (contextgraph.md §7), each a level in [0, 1] around a baseline of 0.5,
 * made of impulses that decay to the baseline with the modulator's half-life. A level is
 * computed from the impulses' timestamps when it is read (no timer runs), and each one sets one
 * parameter that retrieval or calibration actually uses.
 */
export const MODULATORS = ['dopamine', 'serotonin', 'noradrenaline', 'acetylcholine'] as const;
export type Modulator = (typeof MODULATORS)[number];

export const BASELINE = 0.5;
/** The most one adjust_neuromodulator call moves a level. */
export const MAX_ADJUST = 0.5;

export interface ModulatorSpec {
  halfLifeMs: number;
  /** What raises or lowers it besides adjust_neuromodulator. */
  drivenBy: string;
  /** The parameter it sets, and how. */
  modulates: string;
}

const MINUTE = 60_000;

export const MODULATOR_SPECS: Readonly<Record<Modulator, ModulatorSpec>> = {
  dopamine: {
    halfLifeMs: 30 * MINUTE,
    drivenBy: 'retrieval outcomes: relevant +0.05, hydrated +0.03, irrelevant −0.02 (record_feedback, hydrate_citation)',
    modulates: 'sync gain: how far each logged retrieval moves the Kuramoto phases (2 × level; 1 at baseline)',
  },
  serotonin: {
    halfLifeMs: 120 * MINUTE,
    drivenBy: 'adjust_neuromodulator only',
    modulates: 'weight spread: fusion weight = base × sync factor^(2 × (1 − level)); high serotonin trusts every space as configured',
  },
  noradrenaline: {
    halfLifeMs: 15 * MINUTE,
    drivenBy: 'irrelevant feedback +0.01 each (poor results call for exploration)',
    modulates: 'result diversity: MMR λ = 1 − 1.6 × max(0, level − 0.5) in the final ranking of search (1 = off at baseline)',
  },
  acetylcholine: {
    halfLifeMs: 60 * MINUTE,
    drivenBy: 'adjust_neuromodulator only',
    modulates: 'calibration learning rate: a recalibration moves each threshold this share (max(0.05, level)) of the way to its fitted value',
  },
};

/** What one retrieval outcome does to the modulators. */
export const OUTCOME_IMPULSES: Readonly<Record<string, Partial<Record<Modulator, number>>>> = {
  relevant: { dopamine: 0.05 },
  hydrated: { dopamine: 0.03 },
  irrelevant: { dopamine: -0.02, noradrenaline: 0.01 },
};

export interface Impulse {
  modulator: Modulator;
  at: number;
  delta: number;
}

/**
 * Each modulator's excess over the baseline at `ref` (Σ delta · 2^(−age/half-life)): with one
 * half-life per modulator the sum decays as one term, so a cache of (ref, excess) gives the
 * level at any later instant without reading the impulses again.
 */
export function excessAt(impulses: readonly Impulse[], ref: number): Record<Modulator, number> {
  const out = { dopamine: 0, serotonin: 0, noradrenaline: 0, acetylcholine: 0 };
  for (const i of impulses) out[i.modulator] += i.delta * Math.pow(2, -Math.max(0, ref - i.at) / MODULATOR_SPECS[i.modulator].halfLifeMs);
  return out;
}

export function levelFrom(modulator: Modulator, excess: number, ref: number, now: number): number {
  const decayed = excess * Math.pow(2, -Math.max(0, now - ref) / MODULATOR_SPECS[modulator].halfLifeMs);
  return Math.min(1, Math.max(0, BASELINE + decayed));
}

/** Impulses older than this many half-lives weigh under 0.1 % and are not read. */
export const HALF_LIVES_READ = 10;

/** The parameters the levels set. */
export function syncGain(dopamine: number): number {
  return 2 * dopamine;
}
export function weightSpread(serotonin: number): number {
  return 2 * (1 - serotonin);
}
export function mmrLambda(noradrenaline: number): number {
  return 1 - 1.6 * Math.max(0, noradrenaline - BASELINE);
}
export function calibrationRate(acetylcholine: number): number {
  return Math.max(0.05, acetylcholine);
}

export function effectOf(modulator: Modulator, level: number): { parameter: string; value: number; baseline_value: number } {
  switch (modulator) {
    case 'dopamine':
      return { parameter: 'sync_gain', value: syncGain(level), baseline_value: syncGain(BASELINE) };
    case 'serotonin':
      return { parameter: 'weight_spread', value: weightSpread(level), baseline_value: weightSpread(BASELINE) };
    case 'noradrenaline':
      return { parameter: 'mmr_lambda', value: mmrLambda(level), baseline_value: mmrLambda(BASELINE) };
    case 'acetylcholine':
      return { parameter: 'calibration_rate', value: calibrationRate(level), baseline_value: calibrationRate(BASELINE) };
  }
}
