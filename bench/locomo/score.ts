/**
 * LoCoMo retrieval scores: recall@k (the fraction of a question's evidence turns in the top k)
 * and hit@k (at least one of them in the top k), averaged over questions, overall and per
 * category. Questions without evidence cannot be scored and are counted instead.
 */
import { recallAt, round4 } from '../metrics.js';

export const LOCOMO_KS = [5, 10, 25, 50] as const;

export interface LocomoScores {
  /** Questions scored (with at least one evidence id). */
  n: number;
  recall_at_5: number;
  recall_at_10: number;
  recall_at_25: number;
  recall_at_50: number;
  hit_at_5: number;
  hit_at_10: number;
  hit_at_25: number;
  hit_at_50: number;
}

export interface ScoredSystem {
  overall: LocomoScores;
  /** Keyed by category number as a string ("1" … "5"). */
  by_category: Record<string, LocomoScores>;
}

export interface LocomoRun {
  category: number;
  ranked: readonly string[];
  evidence: readonly string[];
}

/** 1 when any evidence id is among the first k results, else 0 (0 when there is no evidence). */
export function hitAt(ranked: readonly string[], evidence: readonly string[], k: number): number {
  const wanted = new Set(evidence);
  return ranked.slice(0, k).some((id) => wanted.has(id)) ? 1 : 0;
}

export function scoreLocomo(runs: readonly LocomoRun[]): LocomoScores {
  const scored = runs.filter((r) => r.evidence.length > 0);
  const n = scored.length;
  const mean = (f: (r: LocomoRun) => number) => (n === 0 ? 0 : round4(scored.reduce((s, r) => s + f(r), 0) / n));
  const recall = (k: number) => mean((r) => recallAt(r.ranked, new Map(r.evidence.map((id) => [id, 1])), k));
  const hit = (k: number) => mean((r) => hitAt(r.ranked, r.evidence, k));
  return {
    n,
    recall_at_5: recall(5),
    recall_at_10: recall(10),
    recall_at_25: recall(25),
    recall_at_50: recall(50),
    hit_at_5: hit(5),
    hit_at_10: hit(10),
    hit_at_25: hit(25),
    hit_at_50: hit(50),
  };
}

export function scoreByCategory(runs: readonly LocomoRun[]): ScoredSystem {
  const byCategory: Record<string, LocomoScores> = {};
  for (const c of [...new Set(runs.map((r) => r.category))].sort((a, b) => a - b)) byCategory[String(c)] = scoreLocomo(runs.filter((r) => r.category === c));
  return { overall: scoreLocomo(runs), by_category: byCategory };
}
