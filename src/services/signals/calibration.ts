/**
 * Adaptive threshold calibration (contextgraph.md §8) over observed outcomes: a search score is
 * read as a probability of relevance, each explicit feedback on a shown hit is an observation
 * (score, relevant?), Platt scaling maps scores to calibrated probabilities, and the score
 * threshold is the score whose calibrated probability is one half.
 */
export interface Observation {
  score: number;
  relevant: boolean;
}

export interface PlattMap {
  a: number;
  b: number;
}

export const IDENTITY: PlattMap = { a: 1, b: 0 };
export const DEFAULT_SCORE_THRESHOLD = 0.25;
/** Bounds of the calibrated score threshold. */
export const THRESHOLD_RANGE = { min: 0.05, max: 0.9 } as const;
/** Fewer observations than this leave the map and thresholds as they are. */
export const MIN_OBSERVATIONS = 10;
export const BINS = 10;

const EPS = 1e-4;
const logit = (p: number) => {
  const q = Math.min(1 - EPS, Math.max(EPS, p));
  return Math.log(q / (1 - q));
};
const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

export function applyMap(map: PlattMap, score: number): number {
  return sigmoid(map.a * logit(score) + map.b);
}

/**
 * Logistic regression of the outcome on logit(score) (Newton's method), with a weak Gaussian
 * prior towards the identity map so that perfectly separated feedback keeps a finite slope.
 */
export function fitPlatt(obs: readonly Observation[], prior = 1): PlattMap {
  let a = 1;
  let b = 0;
  for (let iter = 0; iter < 50; iter++) {
    let ga = prior * (a - 1);
    let gb = prior * b;
    let haa = prior;
    let hab = 0;
    let hbb = prior;
    for (const o of obs) {
      const x = logit(o.score);
      const p = sigmoid(a * x + b);
      const r = p - (o.relevant ? 1 : 0);
      const w = p * (1 - p);
      ga += r * x;
      gb += r;
      haa += w * x * x;
      hab += w * x;
      hbb += w;
    }
    const det = haa * hbb - hab * hab;
    if (!(det > 0)) break;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    a -= da;
    b -= db;
    if (Math.abs(da) + Math.abs(db) < 1e-9) break;
  }
  return { a, b };
}

/** The score whose calibrated probability is `target`; null when the map does not rise with the score. */
export function thresholdFor(map: PlattMap, target = 0.5): number | null {
  if (!(map.a > 0)) return null;
  return sigmoid((logit(target) - map.b) / map.a);
}

export function clampThreshold(t: number): number {
  return Math.min(THRESHOLD_RANGE.max, Math.max(THRESHOLD_RANGE.min, t));
}

export interface Bin {
  from: number;
  to: number;
  count: number;
  confidence: number;
  accuracy: number;
}

export interface CalibrationMetrics {
  observations: number;
  /** Σ (n_b / N) · |confidence_b − accuracy_b| over 10 equal-width bins. */
  ece: number | null;
  /** The largest bin gap. */
  mce: number | null;
  /** Mean (confidence − outcome)². */
  brier: number | null;
  bins: Bin[];
}

export function calibrationMetrics(obs: readonly Observation[], map: PlattMap): CalibrationMetrics {
  const sums = Array.from({ length: BINS }, () => ({ n: 0, conf: 0, hits: 0 }));
  let brier = 0;
  for (const o of obs) {
    const p = applyMap(map, o.score);
    const y = o.relevant ? 1 : 0;
    brier += (p - y) ** 2;
    const bin = sums[Math.min(BINS - 1, Math.floor(p * BINS))]!;
    bin.n++;
    bin.conf += p;
    bin.hits += y;
  }
  const n = obs.length;
  const bins = sums.flatMap((s, i) => (s.n ? [{ from: i / BINS, to: (i + 1) / BINS, count: s.n, confidence: s.conf / s.n, accuracy: s.hits / s.n }] : []));
  if (n === 0) return { observations: 0, ece: null, mce: null, brier: null, bins };
  const gaps = bins.map((b) => Math.abs(b.confidence - b.accuracy));
  return {
    observations: n,
    ece: bins.reduce((sum, b, i) => sum + (b.count / n) * gaps[i]!, 0),
    mce: Math.max(...gaps),
    brier: brier / n,
    bins,
  };
}

/** Status words of contextgraph.md §8 by ECE. */
export function eceStatus(ece: number | null): 'no_observations' | 'excellent' | 'good' | 'acceptable' | 'poor' | 'critical' {
  if (ece === null) return 'no_observations';
  if (ece < 0.05) return 'excellent';
  if (ece < 0.1) return 'good';
  if (ece < 0.15) return 'acceptable';
  if (ece < 0.25) return 'poor';
  return 'critical';
}
