import type { EncoderInfo, SpaceId, SpaceInfo } from './types.js';

/**
 * The 13 spaces of seed 001 (contextgraph.md §1). All of them are registered so ids, names and
 * purposes are stable from day one; only the spaces with a working encoder are `implemented`.
 * The rest stay `planned` until an encoder exists: a space without one must not be searched.
 */
export const SPACES: readonly SpaceInfo[] = Object.freeze([
  { id: 'E1', name: 'semantic', purpose: 'meaning of the text (dense sentence embedding)', status: 'implemented' },
  { id: 'E2', name: 'temporal-recent', purpose: 'freshness: multi-rate exponential decay of the age of the memory', status: 'planned' },
  { id: 'E3', name: 'temporal-periodic', purpose: 'periodicity: Fourier phase features over hour, day, week, month, year', status: 'planned' },
  { id: 'E4', name: 'temporal-positional', purpose: 'ordering: sinusoidal position encoding of the timestamp', status: 'planned' },
  { id: 'E5', name: 'causal', purpose: 'causality: asymmetric cause and effect vectors', status: 'planned' },
  { id: 'E6', name: 'sparse', purpose: 'selectivity: sparse lexical expansion (SPLADE)', status: 'planned' },
  { id: 'E7', name: 'code', purpose: 'correctness: embeddings of source code and identifiers', status: 'planned' },
  { id: 'E8', name: 'graph', purpose: 'connectivity: relational source/target vectors (the "emotional" slot of era A)', status: 'planned' },
  { id: 'E9', name: 'hdc', purpose: 'robustness: character-trigram hyperdimensional vectors that tolerate typos', status: 'implemented' },
  { id: 'E10', name: 'multimodal', purpose: 'multimodality: text tower of a joint text-image model', status: 'planned' },
  { id: 'E11', name: 'entity', purpose: 'factuality: entity and knowledge-graph embeddings', status: 'planned' },
  { id: 'E12', name: 'late-interaction', purpose: 'precision: per-token vectors for MaxSim reranking (ColBERT)', status: 'planned' },
  { id: 'E13', name: 'keyword', purpose: 'keyword precision: sparse term frequencies ranked by BM25 in an inverted index (the lexical signal)', status: 'implemented' },
] satisfies SpaceInfo[]);

const byId = new Map<SpaceId, SpaceInfo>(SPACES.map((s) => [s.id, s]));

export function spaceInfo(id: SpaceId): SpaceInfo {
  const info = byId.get(id);
  // SpaceId is a closed union, but ids also arrive from stored rows and tool arguments.
  if (!info) throw new Error(`unknown embedding space ${JSON.stringify(id)} (known: ${SPACES.map((s) => s.id).join(', ')})`);
  return info;
}

export function isSpaceId(value: unknown): value is SpaceId {
  return typeof value === 'string' && byId.has(value as SpaceId);
}

/**
 * One space's encoder as the worker runs it. Encoders are plain objects in worker state; only
 * `info` crosses to the main thread.
 */
export interface SpaceEncoder {
  readonly info: EncoderInfo;
  /**
   * One vector per text, in order: L2-normalised of length `info.dim` for a dense space; for a
   * sparse space (`info.dim` 0, E13) a packed variable-length term vector (src/embed/keyword.ts).
   */
  encode(texts: readonly string[]): Promise<Float32Array[]> | Float32Array[];
  close?(): Promise<void>;
}

/** Scales in place to unit length; a zero vector stays zero rather than turning into NaNs. */
export function l2normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  if (sum > 0) {
    const inv = 1 / Math.sqrt(sum);
    for (let i = 0; i < v.length; i++) v[i] = v[i]! * inv;
  }
  return v;
}
