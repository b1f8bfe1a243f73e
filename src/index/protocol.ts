import type { SpaceId } from '../embed/types.js';
import type { SpaceIndexSpec, VectorHit } from './vector-index.js';

/**
 * Messages between the host (src/index/usearch-host.ts) and the index thread
 * (workers/index.ts). Both sides import only types from here, so the worker bundle pulls in
 * nothing from the host.
 *
 * Keys travel as numbers (nodes.nid; safe integers, checked by the host) and become bigint
 * only inside the worker. Vectors travel as one flattened Float32Array per batch.
 */
export type IndexTask =
  | { op: 'ensure'; spec: SpaceIndexSpec }
  /**
   * Dense space: `vectors` holds keys.length × dim floats, row i belonging to keys[i]. Sparse
   * space (dim 0): rows have variable length, `lengths[i]` floats each, concatenated in order.
   */
  | { op: 'upsert'; space: SpaceId; keys: number[]; vectors: Float32Array; lengths?: number[] }
  | { op: 'remove'; space: SpaceId; keys: number[] }
  /** A sparse space takes the query's packed term vector. */
  | { op: 'search'; space: SpaceId; query: Float32Array; k: number }
  | { op: 'sizes' }
  | { op: 'save'; dir: string; feedSeq: number }
  | { op: 'load'; dir: string; specs: SpaceIndexSpec[] }
  | { op: 'close' };

export type IndexOp = IndexTask['op'];

export interface LoadResult {
  /** The feed position of the snapshot when every requested spec was loaded from it, else 0. */
  feedSeq: number;
  loaded: SpaceId[];
  /** Specs left empty, with the reason (no meta, spec changed, unreadable file). */
  skipped: Array<{ space: SpaceId; reason: string }>;
}

/** What the worker answers to each op. */
export interface IndexResults {
  ensure: void;
  upsert: void;
  /** How many of the keys were present. */
  remove: number;
  search: VectorHit[];
  sizes: Partial<Record<SpaceId, number>>;
  save: void;
  load: LoadResult;
  close: void;
}

/** meta.json of a snapshot directory. */
export interface SnapshotMeta {
  version: 1;
  feedSeq: number;
  savedAt: string;
  spaces: Array<SpaceIndexSpec & { file: string; size: number; metric: string; quantization: string; connectivity: number }>;
}
