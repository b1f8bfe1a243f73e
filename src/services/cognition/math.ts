import { STOP_WORDS } from '../../embed/keyword.js';

/**
 * Pure numerics of the workspace, ego, autonomy and meta-UTL services: every function takes
 * stored values and returns a number derived from them (nothing reads a clock or a constant).
 */

export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

/** Σ wᵢ·vᵢ normalised to unit length; null when there is nothing (or only zero weight). */
export function weightedCentroid(vectors: readonly ArrayLike<number>[], weights: readonly number[]): Float32Array | null {
  if (vectors.length === 0) return null;
  const c = new Float32Array(vectors[0]!.length);
  vectors.forEach((v, j) => {
    const w = weights[j] ?? 1;
    for (let i = 0; i < c.length; i++) c[i] = c[i]! + w * v[i]!;
  });
  let norm = 0;
  for (let i = 0; i < c.length; i++) norm += c[i]! * c[i]!;
  if (norm <= 0) return null;
  const inv = 1 / Math.sqrt(norm);
  for (let i = 0; i < c.length; i++) c[i] = c[i]! * inv;
  return c;
}

export interface Clustering {
  /** Cluster index of each vector. */
  assignment: number[];
  centroids: Float32Array[];
}

/**
 * Spherical k-means (cosine), deterministic: the first centroid is vector 0 (callers pass the
 * most important first), each next one the vector farthest from the chosen ones (k-means++
 * without the dice), then Lloyd iterations until no assignment changes (at most 50).
 */
export function kMeans(vectors: readonly Float32Array[], k: number): Clustering {
  const n = vectors.length;
  k = Math.max(1, Math.min(k, n));
  const centroids: Float32Array[] = [Float32Array.from(vectors[0]!)];
  const nearest = vectors.map((v) => cosine(v, centroids[0]!));
  while (centroids.length < k) {
    let far = -1;
    let low = Infinity;
    nearest.forEach((s, i) => {
      if (s < low) {
        low = s;
        far = i;
      }
    });
    centroids.push(Float32Array.from(vectors[far]!));
    vectors.forEach((v, i) => (nearest[i] = Math.max(nearest[i]!, cosine(v, centroids[centroids.length - 1]!))));
  }
  let assignment = new Array<number>(n).fill(-1);
  for (let iter = 0; iter < 50; iter++) {
    const next = vectors.map((v) => {
      let best = 0;
      let bestSim = -Infinity;
      centroids.forEach((c, j) => {
        const s = cosine(v, c);
        if (s > bestSim) {
          bestSim = s;
          best = j;
        }
      });
      return best;
    });
    const changed = next.some((a, i) => a !== assignment[i]);
    assignment = next;
    if (!changed) break;
    centroids.forEach((c, j) => {
      const members = vectors.filter((_, i) => assignment[i] === j);
      const m = weightedCentroid(members, []);
      if (m) centroids[j] = m;
    });
  }
  return { assignment, centroids };
}

/** Ranks with ties averaged (1-based). */
function ranks(xs: readonly number[]): number[] {
  const order = xs.map((x, i) => ({ x, i })).sort((a, b) => a.x - b.x);
  const out = new Array<number>(xs.length);
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]!.x === order[i]!.x) j++;
    for (let t = i; t <= j; t++) out[order[t]!.i] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return out;
}

/** Pearson correlation; null when either side does not vary (nothing to predict). */
export function pearson(xs: readonly number[], ys: readonly number[]): number | null {
  const n = Math.min(xs.length, ys.length);
  if (n < 3) return null;
  const mx = xs.reduce((s, x) => s + x, 0) / n;
  const my = ys.reduce((s, y) => s + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    sxx += (xs[i]! - mx) ** 2;
    syy += (ys[i]! - my) ** 2;
  }
  return sxx > 1e-12 && syy > 1e-12 ? sxy / Math.sqrt(sxx * syy) : null;
}

/** Spearman rank correlation: does a higher x come with a higher y, whatever the scale. */
export function spearman(xs: readonly number[], ys: readonly number[]): number | null {
  return pearson(ranks(xs), ranks(ys));
}

/** Shannon entropy of a distribution, divided by its maximum log(n): 1 = all equal, 0 = one holds all. */
export function normalizedEntropy(weights: readonly number[]): number {
  const total = weights.reduce((s, w) => s + Math.max(0, w), 0);
  if (weights.length < 2 || total <= 0) return 0;
  let h = 0;
  for (const w of weights) {
    const p = Math.max(0, w) / total;
    if (p > 0) h -= p * Math.log(p);
  }
  return h / Math.log(weights.length);
}

/**
 * Exponentially weighted moving average of a series, oldest first: every value it took. Bias
 * corrected (divided by 1 − (1 − α)^t, as Adam does), so the first values are a weighted mean of
 * what was seen rather than pulled toward the first one.
 */
export function ewmaSeries(xs: readonly number[], alpha: number): number[] {
  const out: number[] = [];
  let m = 0;
  let decay = 1;
  for (const x of xs) {
    m = alpha * x + (1 - alpha) * m;
    decay *= 1 - alpha;
    out.push(m / (1 - decay));
  }
  return out;
}

/** Least-squares slope of a series against its index (per step). */
export function slope(ys: readonly number[]): number {
  const n = ys.length;
  if (n < 2) return 0;
  const mx = (n - 1) / 2;
  const my = ys.reduce((s, y) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  ys.forEach((y, i) => {
    num += (i - mx) * (y - my);
    den += (i - mx) ** 2;
  });
  return num / den;
}

export function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 2 && !STOP_WORDS.has(w) && !/^\d+$/.test(w));
}

/**
 * The terms that set a group of texts apart from all of them: document frequency inside the
 * group × log(all documents / documents with the term), best first.
 */
export function distinctiveTerms(group: readonly string[], all: readonly string[], n: number): string[] {
  const df = new Map<string, number>();
  for (const t of all) for (const w of new Set(words(t))) df.set(w, (df.get(w) ?? 0) + 1);
  const inGroup = new Map<string, number>();
  for (const t of group) for (const w of new Set(words(t))) inGroup.set(w, (inGroup.get(w) ?? 0) + 1);
  return [...inGroup.entries()]
    .map(([w, c]) => ({ w, score: c * Math.log((all.length + 1) / (df.get(w) ?? 1)) }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || a.w.localeCompare(b.w))
    .slice(0, n)
    .map((x) => x.w);
}

export const round4 = (x: number) => Math.round(x * 1e4) / 1e4;
export const clamp01 = (x: number) => Math.min(1, Math.max(0, x));
