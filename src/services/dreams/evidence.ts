import type { LoggedRetrieval } from '../../store/retrieval-log-repo.js';

/**
 * The arithmetic of dreams, pure: what the retrieval log says about pairs of memories, and the
 * rules that turn it into edge weights. Each input is read from the store (retrieval_log hits and
 * their calibrated scores, edge weights and times); nothing here reads a clock.
 */

/** Hits of one retrieval that count as "retrieved together": the first five, what a caller reads first. */
export const CO_RETRIEVAL_TOP_K = 5;
/** Hebbian learning rate η: one co-retrieval of two hits scoring s_a, s_b moves w by η·s_a·s_b of the way to 1. */
export const HEBBIAN_RATE = 0.5;
/** No decay below this weight (contextgraph.md §6: the origin's prune floor). */
export const WEIGHT_FLOOR = 0.05;
/** An unused automatic edge loses half its weight above the floor per this many idle days. */
export const DECAY_HALF_LIFE_DAYS = 90;

export interface CoRetrievalEvent {
  retrievalId: number;
  /** s_a·s_b: the two hits' calibrated scores multiplied (0..1). */
  strength: number;
  query: string;
}

export interface PairEvidence {
  /** The pair's ids in sorted order (a < b). */
  a: string;
  b: string;
  /** Oldest retrieval first. */
  events: CoRetrievalEvent[];
}

export function pairKey(x: string, y: string): string {
  return x < y ? `${x}|${y}` : `${y}|${x}`;
}

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/**
 * Every pair of memories that appeared together among the first `topK` kept hits of a
 * retrieval. One event per distinct query (case and spacing aside): asking the same question
 * twice is not independent evidence, so a repeat keeps the strongest strength and the newest
 * retrieval id. `keep` says which hits count (live memories of the dreaming project).
 */
export function coRetrievals(retrievals: readonly LoggedRetrieval[], keep: (id: string) => boolean, topK = CO_RETRIEVAL_TOP_K): Map<string, PairEvidence> {
  const byQuery = new Map<string, Map<string, CoRetrievalEvent>>();
  const ends = new Map<string, [string, string]>();
  for (const r of [...retrievals].sort((x, y) => x.id - y.id)) {
    const seen = new Set<string>();
    const hits = r.hits.filter((h) => keep(h.id) && !seen.has(h.id) && seen.add(h.id)).slice(0, topK);
    const query = r.query.trim().toLowerCase().replace(/\s+/g, ' ');
    for (let i = 0; i < hits.length; i++) {
      for (let j = i + 1; j < hits.length; j++) {
        const [x, y] = [hits[i]!, hits[j]!];
        const key = pairKey(x.id, y.id);
        ends.set(key, x.id < y.id ? [x.id, y.id] : [y.id, x.id]);
        const events = byQuery.get(key) ?? new Map<string, CoRetrievalEvent>();
        const strength = clamp01(x.score) * clamp01(y.score);
        const prior = events.get(query);
        events.set(query, { retrievalId: r.id, strength: Math.max(strength, prior?.strength ?? 0), query: r.query });
        byQuery.set(key, events);
      }
    }
  }
  const pairs = new Map<string, PairEvidence>();
  for (const [key, events] of byQuery) {
    const [a, b] = ends.get(key)!;
    pairs.set(key, { a, b, events: [...events.values()].sort((x, y) => x.retrievalId - y.retrievalId) });
  }
  return pairs;
}

/** Hebbian update, one co-retrieval at a time: w ← w + η·s·(1 − w). Bounded by 1, never lowers w. */
export function hebbian(weight: number, strengths: readonly number[], rate = HEBBIAN_RATE): number {
  let w = clamp01(weight);
  for (const s of strengths) w += rate * clamp01(s) * (1 - w);
  return w;
}

/** Confidence that a pair belongs together from independent co-retrievals: 1 − Π(1 − s). */
export function noisyOr(strengths: readonly number[]): number {
  return 1 - strengths.reduce((p, s) => p * (1 - clamp01(s)), 1);
}

/** Weight after `idleDays` without use: halves above nothing per half-life, never below the floor. */
export function decayed(weight: number, idleDays: number, halfLifeDays = DECAY_HALF_LIFE_DAYS, floor = WEIGHT_FLOOR): number {
  if (idleDays <= 0 || weight <= floor) return weight;
  return Math.max(floor, weight * 2 ** (-idleDays / halfLifeDays));
}

/** Replay order: the highest learning magnitude L first (unmeasured last), then the most recent. */
export function replayOrder<T extends { learning: number | null; recency: number }>(memories: readonly T[]): T[] {
  return [...memories].sort((x, y) => (y.learning ?? -1) - (x.learning ?? -1) || y.recency - x.recency);
}

/** Union-find over near-duplicate pairs: the clusters (two or more members), each sorted. */
export function clustersOf(pairs: ReadonlyArray<readonly [string, string]>): string[][] {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let r = x;
    while (parent.get(r) !== r) r = parent.get(r)!;
    parent.set(x, r);
    return r;
  };
  for (const [x, y] of pairs) {
    if (!parent.has(x)) parent.set(x, x);
    if (!parent.has(y)) parent.set(y, y);
    const [rx, ry] = [find(x), find(y)];
    if (rx !== ry) parent.set(rx < ry ? ry : rx, rx < ry ? rx : ry);
  }
  const groups = new Map<string, string[]>();
  for (const x of parent.keys()) groups.set(find(x), [...(groups.get(find(x)) ?? []), x]);
  return [...groups.values()].filter((g) => g.length >= 2).map((g) => g.sort());
}

/** The key a cluster is known by across processes (sampled summaries are matched on it). */
export function clusterKey(members: readonly string[]): string {
  return [...members].sort().join(',');
}

/**
 * Pruning score (get_pruning_candidates): low importance × low access × idle time × redundancy,
 * each factor in [0, 1], so a memory is a strong candidate only when all four agree.
 */
export function pruningScore(f: { importance: number; accessCount: number; idleRank: number; redundancy: number }): number {
  return (1 - clamp01(f.importance)) * (1 / (1 + Math.max(0, f.accessCount))) * clamp01(f.idleRank) * clamp01(f.redundancy);
}
