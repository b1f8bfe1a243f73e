/**
 * Weighted reciprocal-rank fusion (Cormack et al.): score(d) = Σ_i w_i / (k + rank_i(d)), rank
 * 1-based. Ranks, not raw scores, are fused because lexical ranks and cosines live on
 * different scales.
 */
export interface RankedSignal {
  name: string;
  weight: number;
  /** Best first. `score` is the signal's own raw score, reported back untouched. */
  hits: readonly { key: number; score: number }[];
}

export interface FusedHit {
  key: number;
  /** Fused score divided by its maximum (first in every signal), so it lies in (0, 1]. */
  score: number;
  signals: Record<string, { rank: number; score: number }>;
}

export const RRF_K = 60;

export function fuseRanks(signals: readonly RankedSignal[], k: number = RRF_K): FusedHit[] {
  const totalWeight = signals.reduce((sum, s) => sum + (s.weight > 0 ? s.weight : 0), 0);
  const best = totalWeight / (k + 1);
  const byKey = accumulate(signals, (signal) => (_score, rank) => signal.weight / (k + rank));
  const fused = [...byKey.entries()].map(([key, e]) => ({ key, score: best > 0 ? e.raw / best : 0, signals: e.signals }));
  // Ties break on key so the order never depends on the order signals were passed in.
  fused.sort((a, b) => b.score - a.score || a.key - b.key);
  return fused;
}

/**
 * Weighted sum of normalised scores: lexical (BM25) divided by the query's best BM25, any other
 * signal min-max scaled over its own candidates (from 0 below MIN_MAX_POPULATION of them); a
 * signal that did not list a key adds 0. Raw
 * scores keep the strength of a match that ranks throw away: on LoCoMo (bench --parts locomo)
 * BM25 + GloVe E1 fused this way beat the same pair under RRF at every k (research note, §5.1).
 * The result is divided by the total weight, so it lies in [0, 1].
 */
/** Candidates a signal needs before its scores are min-max scaled (see fuseScores). */
export const MIN_MAX_POPULATION = 20;

export function fuseScores(signals: readonly RankedSignal[], lexical: string): FusedHit[] {
  const totalWeight = signals.reduce((sum, s) => sum + (s.weight > 0 ? s.weight : 0), 0);
  const byKey = accumulate(signals, (signal) => {
    const scores = signal.hits.map((h) => h.score);
    const max = Math.max(...scores);
    // Min-max needs a population: over a handful of candidates (a small project) it would make
    // the weaker of two near-equal matches worth nothing, so short lists are scaled from 0.
    const min = signal.name === lexical || scores.length < MIN_MAX_POPULATION ? 0 : Math.min(...scores);
    const span = max - min;
    // One candidate alone (or all equal) is that signal's best: full credit.
    return (score) => signal.weight * (span > 0 ? Math.max(0, (score - min) / span) : 1);
  });
  const fused = [...byKey.entries()].map(([key, e]) => ({ key, score: totalWeight > 0 ? e.raw / totalWeight : 0, signals: e.signals }));
  fused.sort((a, b) => b.score - a.score || a.key - b.key);
  return fused;
}

/**
 * Sums each signal's contribution per key, in a fixed signal order (so float results do not
 * depend on the order signals arrive in); a key listed twice by one signal counts once, at its
 * best rank. `contribution` is built once per signal with a weight above 0 and given the hit's
 * raw score and 1-based rank.
 */
function accumulate(
  signals: readonly RankedSignal[],
  contribution: (signal: RankedSignal) => (score: number, rank: number) => number,
): Map<number, { raw: number; signals: FusedHit['signals'] }> {
  const byKey = new Map<number, { raw: number; signals: FusedHit['signals'] }>();
  const ordered = [...signals].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const signal of ordered) {
    if (!(signal.weight > 0) || signal.hits.length === 0) continue;
    const add = contribution(signal);
    const seen = new Set<number>();
    let rank = 0;
    for (const hit of signal.hits) {
      if (seen.has(hit.key)) continue;
      seen.add(hit.key);
      rank++;
      const entry = byKey.get(hit.key) ?? { raw: 0, signals: {} };
      entry.raw += add(hit.score, rank);
      entry.signals[signal.name] = { rank, score: hit.score };
      byKey.set(hit.key, entry);
    }
  }
  return byKey;
}

/**
 * Cosines (GloVe SIF or a sentence transformer) at or below COSINE_FLOOR say nothing about
 * relevance and those from COSINE_FULL up are a sure match; on LoCoMo the median cosine of an
 * evidence turn was 0.37, of an unrelated turn 0.09 (its 99th percentile 0.51).
 */
export const COSINE_FLOOR = 0.2;
export const COSINE_FULL = 0.8;

/**
 * How well one hit matches its query, in [0, 1], from raw signal values rather than ranks
 * within the candidates, so that it can say "nothing here": the best of the lexical score as a
 * share of `lexicalScale` (the BM25 of the shortest document holding each query term once, so a
 * hit matching one common word of a rare-worded query stays low) and each dense cosine on the
 * COSINE_FLOOR..COSINE_FULL ramp.
 */
export function matchStrength(signals: FusedHit['signals'], lexical: string, lexicalScale: number): number {
  let best = 0;
  for (const [name, s] of Object.entries(signals)) {
    const strength = name === lexical ? (lexicalScale > 0 ? s.score / lexicalScale : 0) : (s.score - COSINE_FLOOR) / (COSINE_FULL - COSINE_FLOOR);
    best = Math.max(best, Math.min(1, strength));
  }
  return best;
}
