import type { IndexKind, SpaceId } from '../embed/types.js';

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
  /** Vector length; 0 for a sparse space (variable-length packed term vectors, E13). */
  dim: number;
  modelId: string;
  /** Which index kind holds the space; default: the one its definition in src/embed/spaces/ declares. */
  index?: IndexKind;
}

export interface SearchOptions {
  /**
   * Only these keys may be returned. The index scores exactly these (cost grows with their
   * number, not with the index), so pass it for a small candidate set, such as the entries a
   * filter allows when they are few; without it the whole index is searched.
   */
  among?: readonly number[];
}

export interface IndexBatch {
  removals: ReadonlyArray<{ space: SpaceId; keys: readonly number[] }>;
  upserts: ReadonlyArray<{ space: SpaceId; keys: readonly number[]; vectors: readonly Float32Array[] }>;
}

/**
 * Drops keys from every space of this process's indexes in one message. For nodes deleted for
 * good (a purge, an undo that un-creates a node): their embedding rows go with them, so no feed
 * entry tells the replicas to drop the keys, and a key left behind would hold a candidate slot
 * in every search that finds it.
 */
export function dropKeysEverywhere(indexes: Pick<VectorIndexes, 'applyBatch'>, spaces: readonly SpaceId[], keys: readonly number[]): Promise<void> {
  if (keys.length === 0 || spaces.length === 0) return Promise.resolve();
  return indexes.applyBatch({ removals: spaces.map((space) => ({ space, keys })), upserts: [] });
}

/**
 * One index per embedding space, held and searched on a worker thread (workers/index.ts), of
 * the kind the space declares (src/index/kinds/): USearch HNSW for dense spaces, a BM25
 * inverted index for sparse ones, whose vectors and queries are packed term vectors
 * (src/embed/keyword.ts) and whose hits carry BM25 scores.
 */
export interface VectorIndexes {
  /** Creates (or re-creates, when dim/model changed) the index of a space. */
  ensure(spec: SpaceIndexSpec): Promise<void>;
  /** Inserts or replaces vectors by key. */
  upsert(space: SpaceId, keys: readonly number[], vectors: readonly Float32Array[]): Promise<void>;
  remove(space: SpaceId, keys: readonly number[]): Promise<void>;
  /**
   * Removals, then upserts, across spaces in one round trip to the index thread: what applying
   * a stretch of the embedding feed needs (13 spaces per memory, so 13 round trips otherwise).
   */
  applyBatch(batch: IndexBatch): Promise<void>;
  /** Best first, at most k; an empty or unknown space gives []. */
  search(space: SpaceId, query: Float32Array, k: number, opts?: SearchOptions): Promise<VectorHit[]>;
  /**
   * The inverse document frequency of each term id in a sparse space, from its live statistics
   * (what BM25 weighs the term by); 0 for each id when the space is dense, empty or unknown.
   * Sent alone by default, for a caller that waits on it before anything else; `withReads` sends
   * it with the reads issued in the same turn (one message, its answer comes with theirs).
   */
  termIdf(space: SpaceId, termIds: readonly number[], opts?: { withReads?: boolean }): Promise<number[]>;
  /** Entries per space: every space's, or only those of `only` (which then waits for no other space's load). */
  sizes(only?: readonly SpaceId[]): Promise<Partial<Record<SpaceId, number>>>;
  /** Writes each space's files plus meta (specs + the feed position they reflect) into `dir`. */
  saveSnapshot(dir: string, feedSeq: number): Promise<void>;
  /**
   * Loads the snapshots in `dir` whose spec matches; returns the feed position they reflect
   * (0 when nothing matched, so the caller replays the whole feed).
   */
  loadSnapshot(dir: string, specs: readonly SpaceIndexSpec[]): Promise<number>;
  close(): Promise<void>;
}
