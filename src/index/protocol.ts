import type { SpaceId } from '../embed/types.js';
import type { ResolvedSpec, SavedSpace } from './space-index.js';
import type { VectorHit } from './vector-index.js';

/**
 * Messages between the host (src/index/usearch-host.ts) and the index thread
 * (workers/index.ts). Both sides import only types from here, so the worker bundle pulls in
 * nothing from the host.
 *
 * Keys travel as numbers (nodes.nid; safe integers, checked by the host) and become bigint
 * only inside the worker. Vectors travel as one flattened Float32Array per batch.
 */
export type IndexTask =
  | { op: 'ensure'; spec: ResolvedSpec }
  /**
   * Upserts and removals, of one space or several, in one message: every removal, then every
   * upsert, group by group. Row i of a group is `lengths[i]` floats of `vectors` (groups' rows
   * concatenated in group order): `dim` floats in a dense space, packed (term id, tf) pairs in a
   * sparse one. The host never needs to know which.
   */
  | { op: 'batch'; removals: Array<{ space: SpaceId; keys: number[] }>; upserts: Array<{ space: SpaceId; keys: number[]; lengths: number[] }>; vectors: Float32Array }
  /** A sparse space takes the query's packed term vector. `among`: only these keys, scored exactly. */
  | { op: 'search'; space: SpaceId; query: Float32Array; k: number; among?: number[] }
  /** A sparse space's inverse document frequency of each term id (0 from a dense space). */
  | { op: 'idf'; space: SpaceId; termIds: number[] }
  /** Every space's size, or only `spaces`' (a read waits for the load of the spaces it reads). */
  | { op: 'sizes'; spaces?: SpaceId[] }
  /**
   * Reads issued together (in one turn of the host's event loop), answered in one message: each
   * wake of the thread costs a round trip, and a search asks several of them at once.
   */
  | { op: 'reads'; tasks: ReadTask[] }
  | { op: 'save'; dir: string; feedSeq: number }
  | { op: 'load'; dir: string; specs: ResolvedSpec[] }
  | { op: 'close' };

export type IndexOp = IndexTask['op'];

/** The ops that only read, and so may share a message (op `reads`). */
export type ReadTask = Extract<IndexTask, { op: 'search' | 'idf' | 'sizes' }>;

/** One read's outcome inside a `reads` answer: a failure stays that read's own. */
export type ReadOutcome = { ok: true; value: unknown } | { ok: false; message: string };

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
  batch: void;
  search: VectorHit[];
  idf: number[];
  sizes: Partial<Record<SpaceId, number>>;
  reads: ReadOutcome[];
  save: void;
  load: LoadResult;
  close: void;
}

/**
 * meta.json of a snapshot directory. Format 2 records each space's index kind and the dense
 * spaces' exact-scoring vectors file; a format-1 snapshot still loads its sparse spaces, and
 * its dense ones are rebuilt from the feed.
 */
export const SNAPSHOT_FORMAT = 2;

export interface SnapshotMeta {
  version: 1 | 2;
  feedSeq: number;
  savedAt: string;
  /** Format 1 entries have no `index` (dim 0 meant sparse). */
  spaces: Array<Omit<SavedSpace, 'index'> & { index?: SavedSpace['index'] }>;
}
