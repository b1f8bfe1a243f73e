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
  /**
   * The raw score that means "no match" (E12's MaxSim: MAXSIM_FLOOR; default 0): fuseScores scales
   * a short list from it instead of from 0, so a signal whose unrelated memories score high does
   * not hand them most of its weight in a small project.
   */
  floor?: number;
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
 * signal min-max scaled over its own candidates (from its `floor`, else 0, below
 * MIN_MAX_POPULATION of them); a
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
    // A short list is scaled from the signal's "no match" level (0 but for MaxSim), so a MaxSim of
    // 0.55 (an unrelated memory) is worth nothing there rather than most of the best one's credit.
    const floor = signal.floor ?? 0;
    const short = scores.length < MIN_MAX_POPULATION;
    const min = signal.name === lexical ? 0 : short ? floor : Math.min(...scores);
    const span = max - min;
    // Nothing above the floor: no credit. One candidate alone (or all equal) is that signal's best: full credit.
    const flat = short && floor > 0 && max <= floor ? 0 : 1;
    return (score) => signal.weight * (span > 0 ? Math.max(0, (score - min) / span) : flat);
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
 * MaxSim (E12, src/index/kinds/multi.ts) is far from 0 for an unrelated memory: every query word
 * meets its nearest GloVe word among the memory's, and chat turns share names and common words
 * with most questions. On LoCoMo dev (bench/calibrate-strength.ts, 997 questions × every turn of
 * their conversation) an unrelated turn's MaxSim has median 0.68 (p95 0.80, p99 0.85), an
 * evidence turn's 0.82; all query words present score 1. Its ramp runs from this floor to 1: the
 * floor at which unrelated turns reach the default threshold 0.25 as often as by E1's cosine ramp
 * (4.7 % vs 4.9 %; evidence turns 56.9 % vs 52.2 %). At 0.6, 39.6 % of unrelated turns would.
 */
export const MAXSIM_FLOOR = 0.735;

/**
 * How one signal's raw score reads as match strength: a BM25 score against the query's own
 * yardstick (query-weights.ts bm25Scale over that space's live IDFs), or a similarity on a ramp
 * from `floor` (nothing) to `full` (a sure match). E6 read this way behaves like E13 on LoCoMo dev
 * (bench/calibrate-strength.ts): unrelated turns reach the default threshold 0.25 in 1.2 % of
 * cases (E13 0.75 %), evidence turns in 43 % (E13 39 %).
 */
export type Yardstick = { kind: 'bm25'; scale: number } | { kind: 'ramp'; floor: number; full: number };

/** Dense cosines (E1 and every other dense space). */
export const COSINE_RAMP: Yardstick = Object.freeze({ kind: 'ramp', floor: COSINE_FLOOR, full: COSINE_FULL });
/** Late interaction (E12). */
export const MAXSIM_RAMP: Yardstick = Object.freeze({ kind: 'ramp', floor: MAXSIM_FLOOR, full: 1 });

/**
 * How well one hit matches its query, in [0, 1], from raw signal values rather than ranks
 * within the candidates, so that it can say "nothing here": the best over its signals of each
 * raw score read by that signal's yardstick (a signal without one is a dense cosine). A BM25
 * yardstick is the score of the shortest document holding each query term once, so a hit
 * matching one common word of a rare-worded query stays low; the same holds for E6, whose
 * expansions post fractional terms.
 */
export function matchStrength(signals: FusedHit['signals'], yardsticks: Readonly<Record<string, Yardstick>>): number {
  let best = 0;
  for (const [name, s] of Object.entries(signals)) {
    const y = yardsticks[name] ?? COSINE_RAMP;
    const strength = y.kind === 'bm25' ? (y.scale > 0 ? s.score / y.scale : 0) : (s.score - y.floor) / (y.full - y.floor);
    best = Math.max(best, Math.min(1, strength));
  }
  return best;
}
