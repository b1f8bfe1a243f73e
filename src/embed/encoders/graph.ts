import type { SpaceEncoder } from '../encoder.js';

/**
 * E8, a node's position in the edge graph. The encoder gives a memory its own E1 vector (the
 * fixed point of a node with no edges), so every memory has an E8 vector from the embed job;
 * the `graph-embed` job (src/services/graph-embedding.ts) then replaces it, whenever edges
 * touching the node change, by `propagate`: its own vector mixed with the edge-weighted mean of
 * its neighbours' E1 vectors. A query is a text with no edges: its E1 vector.
 */
export const GRAPH_MODEL_PREFIX = 'graph-prop-v1';
/** Share of a node's own vector in its E8 vector; the rest is its neighbourhood's mean. */
export const OWN_SHARE = 0.5;

export function createGraphEncoder(e1: SpaceEncoder): SpaceEncoder {
  return {
    info: { space: 'E8', modelId: `${GRAPH_MODEL_PREFIX}+${e1.info.modelId}`, dim: e1.info.dim, provider: e1.info.provider },
    encode: (texts) => e1.encode(texts),
    close: () => Promise.resolve(e1.close?.()),
  };
}

/** normalise(OWN_SHARE · own + (1 − OWN_SHARE) · normalise(Σ w_j · n_j)); own alone without neighbours. */
export function propagate(own: Float32Array, neighbours: ReadonlyArray<{ vector: Float32Array; weight: number }>): Float32Array {
  const d = own.length;
  const mean = new Float64Array(d);
  for (const { vector, weight } of neighbours) {
    if (!(weight > 0) || vector.length !== d) continue;
    for (let i = 0; i < d; i++) mean[i] = mean[i]! + weight * vector[i]!;
  }
  const meanNorm = Math.hypot(...mean);
  const out = new Float32Array(d);
  for (let i = 0; i < d; i++) out[i] = (meanNorm > 0 ? OWN_SHARE : 1) * own[i]! + (meanNorm > 0 ? ((1 - OWN_SHARE) * mean[i]!) / meanNorm : 0);
  const n = Math.hypot(...out);
  if (n > 0) for (let i = 0; i < d; i++) out[i] = out[i]! / n;
  return out;
}
