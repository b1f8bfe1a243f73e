import type { EncoderInfo, SpaceId } from '../embed/types.js';
import { addSample, K_NEAREST, spaceSimilarity, spaceUtl, type DistanceStats, type SpaceUtl } from './utl.js';

/**
 * The arithmetic of one fingerprint batch, pure: per space, each memory of the batch against the
 * `window` vectors written before it (its reference memories), in nid order, with the space's
 * k-NN distance moments advanced memory by memory. The job (fingerprints.ts) reads and writes.
 *
 * Per space the memories are visited in order and the reference window slides by one, so the
 * window's vector sum is kept instead of re-adding `window` vectors per memory (the cost that
 * dominated the job); the centroid cosine is x·sum / |sum|, the cosine to the normalised mean.
 */
/** A stored vector as the fingerprint job reads it (the store's row, decoded). */
export interface StoredVector {
  nid: number;
  space: string;
  model_id: string;
  vector: Float32Array;
}

export interface BatchInput {
  encoders: readonly EncoderInfo[];
  /** The batch's nids, ascending. */
  nids: readonly number[];
  /** Vectors of the reference memories before the batch and of the batch itself, any order. */
  vectors: readonly StoredVector[];
  /** Live graph edges per nid (connectivity). */
  edges: ReadonlyMap<number, number>;
  /** Each space's k-NN distance moments before the batch; advanced in place. */
  stats: Map<string, DistanceStats & { space: string }>;
  window: number;
}

export type SpaceResult = SpaceUtl & { space: SpaceId };

/** What the math answers when it runs on a worker thread: the results and the advanced stats. */
export interface BatchOutput {
  results: Map<number, SpaceResult[]>;
  stats: BatchInput['stats'];
}

/** Per nid, its result in each space it has a vector of, in encoder order. */
export function fingerprintBatchMath(input: BatchInput): Map<number, SpaceResult[]> {
  const { encoders, nids, edges, stats, window } = input;
  const modelOf = new Map(encoders.map((e) => [e.space as string, e.modelId]));
  const bySpace = new Map<string, StoredVector[]>();
  for (const v of input.vectors) {
    if (modelOf.get(v.space) !== v.model_id) continue;
    const list = bySpace.get(v.space);
    if (list) list.push(v);
    else bySpace.set(v.space, [v]);
  }
  const out = new Map<number, SpaceResult[]>(nids.map((nid) => [nid, []]));
  const inBatch = new Set(nids);
  for (const enc of encoders) {
    const all = (bySpace.get(enc.space) ?? []).sort((a, b) => a.nid - b.nid);
    const sparse = enc.dim === 0;
    // The running sum of the window [lo, at) (dense spaces only).
    const sum = sparse ? null : new Float64Array(enc.dim);
    let lo = 0;
    let hi = 0;
    for (let at = 0; at < all.length; at++) {
      const nid = all[at]!.nid;
      if (!inBatch.has(nid)) continue;
      const from = Math.max(0, at - window);
      if (sum) {
        for (; hi < at; hi++) addInto(sum, all[hi]!.vector, 1);
        for (; lo < from; lo++) addInto(sum, all[lo]!.vector, -1);
      }
      const x = all[at]!.vector;
      const sims = new Array<number>(at - from);
      for (let r = from; r < at; r++) sims[r - from] = sparse ? spaceSimilarity(true, x, all[r]!.vector) : dot(x, all[r]!.vector);
      // Without a direction (sparse, or a window that sums to nothing) the mean cosine stands in.
      const toSum = sum && at > from ? cosineToSum(x, sum) : null;
      const centroidCos = toSum ?? (sims.length > 0 ? sims.reduce((s, v) => s + v, 0) / sims.length : 0);
      const near = topIndices(sims, K_NEAREST).map((i) => all[from + i]!.vector);
      const s0 = stats.get(enc.space) ?? { space: enc.space, n: 0, mean: 0, m2: 0 };
      const utl = spaceUtl({ sims, centroidCos, neighbourConsistency: meanPairwise(sparse, near), edges: edges.get(nid) ?? 0, stats: s0 });
      if (sims.length > 0) stats.set(enc.space, { space: enc.space, ...addSample(s0, utl.knnDistance) });
      out.get(nid)!.push({ ...utl, space: enc.space });
    }
  }
  return out;
}

function dot(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  let s0 = 0;
  let s1 = 0;
  let i = 0;
  for (; i + 1 < n; i += 2) {
    s0 += a[i]! * b[i]!;
    s1 += a[i + 1]! * b[i + 1]!;
  }
  if (i < n) s0 += a[i]! * b[i]!;
  return s0 + s1;
}

function addInto(sum: Float64Array, v: Float32Array, sign: 1 | -1): void {
  const n = Math.min(sum.length, v.length);
  for (let i = 0; i < n; i++) sum[i] = sum[i]! + sign * v[i]!;
}

/** Cosine of x (unit length) with the window's mean direction; null when the window sums to nothing. */
function cosineToSum(x: Float32Array, sum: Float64Array): number | null {
  let d = 0;
  let norm = 0;
  for (let i = 0; i < sum.length; i++) {
    d += x[i]! * sum[i]!;
    norm += sum[i]! * sum[i]!;
  }
  // Below float noise the window sums to nothing (empty, or vectors that cancel): no direction.
  return norm > 1e-12 ? d / Math.sqrt(norm) : null;
}

/** Indices of the k largest values, largest first (ties: the earlier index first). */
function topIndices(values: readonly number[], k: number): number[] {
  const best: number[] = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (best.length === k && v <= values[best[k - 1]!]!) continue;
    let at = best.length === k ? k - 1 : best.length;
    while (at > 0 && values[best[at - 1]!]! < v) at--;
    best.splice(at, 0, i);
    if (best.length > k) best.pop();
  }
  return best;
}

/** Mean cosine among a handful of vectors: how much a memory's nearest neighbours agree. */
export function meanPairwise(sparse: boolean, vectors: readonly Float32Array[]): number {
  let sum = 0;
  let pairs = 0;
  for (let i = 0; i < vectors.length; i++) {
    for (let j = i + 1; j < vectors.length; j++) {
      sum += spaceSimilarity(sparse, vectors[i]!, vectors[j]!);
      pairs++;
    }
  }
  return pairs ? sum / pairs : 0;
}
