/**
 * Retrieval quality metrics over ranked id lists. Relevance is graded: a map id → gain (> 0);
 * ids absent from the map are irrelevant. Binary relevance is the special case gain = 1.
 */
export type Relevance = ReadonlyMap<string, number>;

/** Fraction of the relevant ids found in the first k results (0 when nothing is relevant). */
export function recallAt(ranked: readonly string[], relevant: Relevance, k: number): number {
  if (relevant.size === 0) return 0;
  let found = 0;
  const seen = new Set<string>();
  for (const id of ranked.slice(0, k)) {
    if (seen.has(id)) continue;
    seen.add(id);
    if ((relevant.get(id) ?? 0) > 0) found++;
  }
  return found / relevant.size;
}

/** 1 / rank of the first relevant result, 0 when none is ranked (no cut-off). */
export function reciprocalRank(ranked: readonly string[], relevant: Relevance): number {
  for (let i = 0; i < ranked.length; i++) if ((relevant.get(ranked[i]!) ?? 0) > 0) return 1 / (i + 1);
  return 0;
}

/** DCG with the exponential gain (2^rel − 1) / log2(rank + 1), as in TREC and most IR toolkits. */
export function dcgAt(gains: readonly number[], k: number): number {
  let dcg = 0;
  for (let i = 0; i < Math.min(k, gains.length); i++) dcg += (2 ** gains[i]! - 1) / Math.log2(i + 2);
  return dcg;
}

/** nDCG@k: DCG of the ranking over DCG of the ideal ranking of the judged ids. */
export function ndcgAt(ranked: readonly string[], relevant: Relevance, k: number): number {
  const seen = new Set<string>();
  const gains = ranked.slice(0, k).map((id) => {
    if (seen.has(id)) return 0; // a repeated id earns nothing the second time
    seen.add(id);
    return relevant.get(id) ?? 0;
  });
  const ideal = [...relevant.values()].filter((g) => g > 0).sort((a, b) => b - a);
  const idcg = dcgAt(ideal, k);
  return idcg === 0 ? 0 : dcgAt(gains, k) / idcg;
}

export interface QualityScores {
  n: number;
  recall_at_5: number;
  recall_at_10: number;
  recall_at_25: number;
  mrr: number;
  ndcg_at_10: number;
}

/** Means of the metrics over queries (each ranking cut at 25 for recall, unbounded for MRR). */
export function scoreRuns(runs: ReadonlyArray<{ ranked: readonly string[]; relevant: Relevance }>): QualityScores {
  const n = runs.length;
  const mean = (f: (r: (typeof runs)[number]) => number) => (n === 0 ? 0 : round4(runs.reduce((s, r) => s + f(r), 0) / n));
  return {
    n,
    recall_at_5: mean((r) => recallAt(r.ranked, r.relevant, 5)),
    recall_at_10: mean((r) => recallAt(r.ranked, r.relevant, 10)),
    recall_at_25: mean((r) => recallAt(r.ranked, r.relevant, 25)),
    mrr: mean((r) => reciprocalRank(r.ranked, r.relevant)),
    ndcg_at_10: mean((r) => ndcgAt(r.ranked, r.relevant, 10)),
  };
}

/** Vector-index recall@k: |approx ∩ exact| / |exact| per query, averaged. */
export function overlapRecall(approx: ReadonlyArray<ArrayLike<bigint | number>>, exact: ReadonlyArray<ArrayLike<bigint | number>>, k: number): number {
  let sum = 0;
  for (let q = 0; q < exact.length; q++) {
    const truth = new Set<bigint | number>();
    const e = exact[q]!;
    for (let i = 0; i < Math.min(k, e.length); i++) truth.add(e[i]!);
    if (truth.size === 0) continue;
    const a = approx[q]!;
    let hit = 0;
    for (let i = 0; i < Math.min(k, a.length); i++) if (truth.has(a[i]!)) hit++;
    sum += hit / truth.size;
  }
  return exact.length === 0 ? 0 : sum / exact.length;
}

export function round4(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}
