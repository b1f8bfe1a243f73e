/** Latency summaries for bench results. Percentiles use the nearest-rank method. */
export interface LatencySummary {
  n: number;
  mean_ms: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  max_ms: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

export function summarize(samplesMs: readonly number[]): LatencySummary {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  return {
    n: sorted.length,
    mean_ms: round3(sorted.reduce((s, x) => s + x, 0) / Math.max(1, sorted.length)),
    p50_ms: round3(percentile(sorted, 50)),
    p95_ms: round3(percentile(sorted, 95)),
    p99_ms: round3(percentile(sorted, 99)),
    max_ms: round3(sorted[sorted.length - 1] ?? NaN),
  };
}

/** A figure from repeated runs: the median of the runs and their spread (min, max). */
export interface Repeated {
  median: number;
  min: number;
  max: number;
  runs: number[];
}

export function repeated(values: readonly number[]): Repeated {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  const median = sorted.length === 0 ? NaN : sorted.length % 2 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median: round3(median), min: round3(sorted[0] ?? NaN), max: round3(sorted[sorted.length - 1] ?? NaN), runs: values.map(round3) };
}

/** Latency over R rounds: each percentile is the median of the rounds' percentiles, with spread. */
export interface RepeatedLatency {
  rounds: number;
  samples_per_round: number;
  p50_ms: Repeated;
  p95_ms: Repeated;
  p99_ms: Repeated;
  mean_ms: Repeated;
  /** All samples pooled, for reference. */
  pooled: LatencySummary;
}

export function repeatedLatency(rounds: ReadonlyArray<readonly number[]>): RepeatedLatency {
  const sums = rounds.map((r) => summarize(r));
  return {
    rounds: rounds.length,
    samples_per_round: rounds[0]?.length ?? 0,
    p50_ms: repeated(sums.map((s) => s.p50_ms)),
    p95_ms: repeated(sums.map((s) => s.p95_ms)),
    p99_ms: repeated(sums.map((s) => s.p99_ms)),
    mean_ms: repeated(sums.map((s) => s.mean_ms)),
    pooled: summarize(rounds.flat()),
  };
}

/** Runs `fn` and returns elapsed milliseconds. */
export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** a / b rounded, or null when either side is missing or b is 0. */
export function ratio(a: number | null | undefined, b: number | null | undefined): number | null {
  if (a === null || a === undefined || b === null || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return null;
  return Math.round((a / b) * 1000) / 1000;
}
