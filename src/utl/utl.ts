import { unpackTerms } from '../embed/keyword.js';

/**
 * UTL (seed 001, contextgraph.md §2), computed from stored memories only. Pure functions: the
 * fingerprint job (fingerprints.ts) feeds them a memory's vectors and its project's other
 * memories' vectors; nothing here reads a clock or returns a constant.
 */

export type Quadrant = 'open' | 'hidden' | 'blind' | 'unknown';
export type Stage = 'infancy' | 'growth' | 'maturity';

/** Neighbours that make up a memory's neighbourhood (ΔS, cluster fit). */
export const K_NEAREST = 5;
/** The Johari boundary on ΔS and ΔC (seed: 0.5, calibrated later within [0.35, 0.65]). */
export const JOHARI_THRESHOLD = 0.5;

/** Cosine of two vectors of one space: dense ones are unit length; sparse ones are packed terms. */
export function spaceSimilarity(sparse: boolean, a: Float32Array, b: Float32Array): number {
  if (!sparse) {
    let dot = 0;
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) dot += a[i]! * b[i]!;
    return dot;
  }
  const x = unpacked(a);
  const y = unpacked(b);
  let dot = 0;
  const nx = x.norm2;
  const ny = y.norm2;
  // Both id lists are sorted: one merge pass.
  for (let i = 0, j = 0; i < x.ids.length && j < y.ids.length;) {
    if (x.ids[i] === y.ids[j]) dot += x.weights[i++]! * y.weights[j++]!;
    else if (x.ids[i]! < y.ids[j]!) i++;
    else j++;
  }
  return nx > 0 && ny > 0 ? dot / Math.sqrt(nx * ny) : 0;
}

/**
 * A packed sparse vector's terms and squared norm, unpacked once per vector object: the
 * fingerprint job compares each vector with hundreds of others, and unpacking on every
 * comparison was a third of its time. Stored vectors are never mutated, so the memo holds.
 */
const unpackedTerms = new WeakMap<Float32Array, ReturnType<typeof unpackTerms> & { norm2: number }>();
function unpacked(v: Float32Array): ReturnType<typeof unpackTerms> & { norm2: number } {
  let u = unpackedTerms.get(v);
  if (!u) {
    const terms = unpackTerms(v);
    let norm2 = 0;
    for (const w of terms.weights) norm2 += w * w;
    u = { ...terms, norm2 };
    unpackedTerms.set(v, u);
  }
  return u;
}

/** Running moments of the store's k-NN distances in one space (Welford). */
export interface DistanceStats {
  n: number;
  mean: number;
  m2: number;
}

export function addSample(s: DistanceStats, x: number): DistanceStats {
  const n = s.n + 1;
  const delta = x - s.mean;
  const mean = s.mean + delta / n;
  return { n, mean, m2: s.m2 + delta * (x - mean) };
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

export interface SpaceUtl {
  /** Mean distance (1 − cosine) to the k nearest other memories. */
  knnDistance: number;
  surprise: number;
  coherence: number;
  /** Alignment with the project's centroid in this space (the goal until part 4's north star). */
  purpose: number;
  quadrant: Quadrant;
}

/**
 * One space of one memory. `sims` are its cosines to the reference memories (the project's
 * recent ones), `edges` its live graph edges, `stats` the store's k-NN distance distribution.
 *
 * - ΔS = σ((d_k − μ)/σ_d): how much farther than usual its nearest neighbours are. Before five
 *   samples the distribution is unknown, so ΔS = d_k. No reference at all: ΔS = 1 (all new).
 * - ΔC = 0.4·connectivity + 0.4·cluster fit + 0.2·consistency (contextgraph.md §2):
 *   connectivity = (graph edges + references above μ_sim + 2σ_sim) / 10, capped at 1;
 *   cluster fit = silhouette of "its k nearest" against "the rest", mapped to [0, 1];
 *   consistency = how alike its k nearest are to each other's mean (cosine to their centroid).
 * - purpose = cosine to the mean of the references (the project's centroid), mapped to [0, 1].
 */
export function spaceUtl(input: { sims: readonly number[]; centroidCos: number; neighbourConsistency: number; edges: number; stats: DistanceStats }): SpaceUtl {
  const { sims, edges, stats } = input;
  if (sims.length === 0) {
    const coherence = clamp01(edges / 10) * 0.4;
    return { knnDistance: 1, surprise: 1, coherence, purpose: 0, quadrant: quadrantOf(1, coherence) };
  }
  // A typed, comparator-free sort (the fingerprint job sorts ~200 cosines per memory and space);
  // read from the end it is the descending order, summed in the same order as before.
  const asc = Float64Array.from(sims).sort();
  const n = asc.length;
  const k = Math.min(K_NEAREST, n);
  let nearSum = 0;
  for (let i = n - 1; i >= n - k; i--) nearSum += asc[i]!;
  let restSum = 0;
  for (let i = n - k - 1; i >= 0; i--) restSum += asc[i]!;
  const knnDistance = 1 - nearSum / k;
  const sd = stats.n > 1 ? Math.sqrt(stats.m2 / (stats.n - 1)) : 0;
  const surprise = stats.n >= 5 && sd > 1e-6 ? sigmoid((knnDistance - stats.mean) / sd) : clamp01(knnDistance);

  const meanSim = sims.reduce((s, x) => s + x, 0) / sims.length;
  const sdSim = Math.sqrt(sims.reduce((s, x) => s + (x - meanSim) ** 2, 0) / sims.length);
  const close = sims.filter((x) => x > meanSim + 2 * sdSim).length;
  const connectivity = clamp01((edges + close) / 10);
  const a = knnDistance;
  const b = n > k ? 1 - restSum / (n - k) : a;
  const silhouette = Math.max(a, b) > 0 ? (b - a) / Math.max(a, b) : 0;
  const clusterFit = (silhouette + 1) / 2;
  const consistency = clamp01((input.neighbourConsistency + 1) / 2);
  const coherence = clamp01(0.4 * connectivity + 0.4 * clusterFit + 0.2 * consistency);
  return { knnDistance, surprise, coherence, purpose: clamp01((input.centroidCos + 1) / 2), quadrant: quadrantOf(surprise, coherence) };
}

/** Open = known and connected, hidden = known but isolated, blind = new and isolated, unknown = new but connected. */
export function quadrantOf(surprise: number, coherence: number, threshold = JOHARI_THRESHOLD): Quadrant {
  const novel = surprise >= threshold;
  const connected = coherence > threshold;
  if (!novel) return connected ? 'open' : 'hidden';
  return connected ? 'unknown' : 'blind';
}

/** Memories from which a project is mature: no count above it changes the stage. */
export const MATURITY_AT = 500;

/** Lifecycle by how many memories the project holds (the seed's interaction count). */
export function stageOf(memories: number): { stage: Stage; lambdaS: number; lambdaC: number } {
  if (memories < 50) return { stage: 'infancy', lambdaS: 0.7, lambdaC: 0.3 };
  if (memories < MATURITY_AT) return { stage: 'growth', lambdaS: 0.5, lambdaC: 0.5 };
  return { stage: 'maturity', lambdaS: 0.3, lambdaC: 0.7 };
}

/**
 * Learning magnitude L ∈ [0, 1]: the weighted geometric mean ΔS^λS · ΔC^λC of the
 * profile-weighted means over spaces. High only when a memory is both new and fits what is
 * known; a young store values novelty (λS 0.7), a mature one coherence (λC 0.7). The seed's
 * w_e (sentiment lexicon) and φ (a free-running oscillator) had no stored input: left out.
 */
export function learningMagnitude(
  perSpace: ReadonlyArray<{ surprise: number; coherence: number; weight: number }>,
  memories: number,
  fitted: { lambdaS: number; lambdaC: number } | null = null,
): { learning: number; stage: Stage } {
  const total = perSpace.reduce((s, x) => s + x.weight, 0);
  // λ refit by meta-UTL from observed retrievals (trigger_lambda_recalibration) replaces the stage's.
  const { stage, ...byStage } = stageOf(memories);
  const { lambdaS, lambdaC } = fitted ?? byStage;
  if (total <= 0) return { learning: 0, stage };
  const dS = perSpace.reduce((s, x) => s + x.weight * x.surprise, 0) / total;
  const dC = perSpace.reduce((s, x) => s + x.weight * x.coherence, 0) / total;
  return { learning: clamp01(Math.pow(dS, lambdaS) * Math.pow(dC, lambdaC)), stage };
}

/** Mean of unit vectors (dense); its cosine with each of them says how tight the group is. */
export function centroid(vectors: readonly Float32Array[]): Float32Array | null {
  if (vectors.length === 0) return null;
  const c = new Float32Array(vectors[0]!.length);
  for (const v of vectors) for (let i = 0; i < c.length; i++) c[i] = c[i]! + v[i]!;
  let norm = 0;
  for (let i = 0; i < c.length; i++) norm += c[i]! * c[i]!;
  if (norm === 0) return null;
  const inv = 1 / Math.sqrt(norm);
  for (let i = 0; i < c.length; i++) c[i] = c[i]! * inv;
  return c;
}
