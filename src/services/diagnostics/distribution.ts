/**
 * The importance distribution of a project and its homeostatic scaling: the setpoint is 0.5 (the
 * importance every memory is stored with by default; immune-system spec, contextgraph.md §9) and
 * the scaling factor is what every importance would be multiplied by to bring the mean back to it.
 */

export const IMPORTANCE_SETPOINT = 0.5;
/** |mean − setpoint| below this is balanced (the spec's correction threshold). */
export const SETPOINT_TOLERANCE = 0.05;
const BINS = 10;

export interface ImportanceDistribution {
  count: number;
  mean: number;
  std: number;
  quantiles: { p0: number; p10: number; p25: number; p50: number; p75: number; p90: number; p99: number; p100: number };
  /** Ten bins of width 0.1 over [0, 1] (the last one includes 1). */
  histogram: Array<{ from: number; to: number; count: number }>;
  /** Gini coefficient of importance: 0 when every memory weighs the same, towards 1 when a few hold it all. */
  gini: number;
  scaling: { setpoint: number; factor: number | null; state: 'balanced' | 'inflated' | 'deflated' | 'empty'; deviation: number };
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Linear-interpolated quantile of an ascending array (0 for an empty one). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return round(sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo));
}

export function importanceDistribution(values: readonly number[]): ImportanceDistribution {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const mean = n ? sorted.reduce((s, v) => s + v, 0) / n : 0;
  const std = n > 1 ? Math.sqrt(sorted.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1)) : 0;
  const histogram = Array.from({ length: BINS }, (_, i) => ({ from: round(i / BINS), to: round((i + 1) / BINS), count: 0 }));
  for (const v of sorted) histogram[Math.min(BINS - 1, Math.max(0, Math.floor(v * BINS)))]!.count++;
  // Gini over the ascending values: Σ (2i − n − 1)·x_i / (n·Σx).
  const total = sorted.reduce((s, v) => s + v, 0);
  const gini = n && total > 0 ? sorted.reduce((s, v, i) => s + (2 * (i + 1) - n - 1) * v, 0) / (n * total) : 0;
  const deviation = mean - IMPORTANCE_SETPOINT;
  const state = n === 0 ? 'empty' : Math.abs(deviation) < SETPOINT_TOLERANCE ? 'balanced' : deviation > 0 ? 'inflated' : 'deflated';
  return {
    count: n,
    mean: round(mean),
    std: round(std),
    quantiles: {
      p0: quantile(sorted, 0),
      p10: quantile(sorted, 0.1),
      p25: quantile(sorted, 0.25),
      p50: quantile(sorted, 0.5),
      p75: quantile(sorted, 0.75),
      p90: quantile(sorted, 0.9),
      p99: quantile(sorted, 0.99),
      p100: quantile(sorted, 1),
    },
    histogram,
    gini: round(gini),
    scaling: { setpoint: IMPORTANCE_SETPOINT, factor: mean > 0 ? round(IMPORTANCE_SETPOINT / mean) : null, state, deviation: round(deviation) },
  };
}
