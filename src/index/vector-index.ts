import type { SpaceId } from '../embed/types.js';

export interface VectorHit {
  /** nodes.nid of the vector's node. */
  key: number;
  /**
   * Dense space: cosine similarity in [-1, 1] (1 − USearch cosine distance). Sparse space: the
   * BM25 score (≥ 0, unbounded).
   */
  similarity: number;
}

export interface SpaceIndexSpec {
  space: SpaceId;
  /** Vector length; 0 means a sparse space of variable-length packed term vectors (E13). */
  dim: number;
  modelId: string;
}

export function isSparseSpec(spec: Pick<SpaceIndexSpec, 'dim'>): boolean {
  return spec.dim === 0;
}

/**
 * One index per embedding space, held and searched on a worker thread (workers/index.ts):
 * USearch for dense spaces (every call is synchronous), a BM25 inverted index
 * (src/index/sparse.ts) for sparse ones, whose vectors and queries are packed term vectors
 * (src/embed/keyword.ts) and whose hits carry BM25 scores.
 */
export interface VectorIndexes {
  /** Creates (or re-creates, when dim/model changed) the index of a space. */
  ensure(spec: SpaceIndexSpec): Promise<void>;
  /** Inserts or replaces vectors by key. */
  upsert(space: SpaceId, keys: readonly number[], vectors: readonly Float32Array[]): Promise<void>;
  remove(space: SpaceId, keys: readonly number[]): Promise<void>;
  search(space: SpaceId, query: Float32Array, k: number): Promise<VectorHit[]>;
  sizes(): Promise<Partial<Record<SpaceId, number>>>;
  /** Writes one file per space plus meta (spec + the feed position it reflects) into `dir`. */
  saveSnapshot(dir: string, feedSeq: number): Promise<void>;
  /**
   * Loads the snapshots in `dir` whose spec matches; returns the feed position they reflect
   * (0 when nothing matched, so the caller replays the whole feed).
   */
  loadSnapshot(dir: string, specs: readonly SpaceIndexSpec[]): Promise<number>;
  close(): Promise<void>;
}
