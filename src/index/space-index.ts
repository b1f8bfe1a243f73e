import { spaceById } from '../embed/spaces/registry.js';
import type { IndexKind } from '../embed/types.js';
import type { SpaceIndexSpec, VectorHit } from './vector-index.js';

/** A spec with its index kind settled. */
export type ResolvedSpec = Required<SpaceIndexSpec>;

/** The index kinds that have an implementation (src/index/kinds/). */
export type BuiltIndexKind = IndexKind;

/**
 * The index of one space inside the index thread. Each kind is one file in src/index/kinds/;
 * the worker (workers/index.ts) only ever talks to this interface.
 */
export interface SpaceIndex {
  readonly spec: ResolvedSpec;
  size(): number;
  /**
   * Inserts or replaces. Row i is `lengths[i]` floats of `rows`, rows concatenated in key
   * order; a dense row is `dim` floats, a sparse one packed (term id, tf) pairs. A key repeated
   * within one batch keeps its last row, as if upserted one by one.
   */
  upsert(keys: readonly number[], rows: Float32Array, lengths: readonly number[]): void;
  /** How many of the keys were present. */
  remove(keys: readonly number[]): number;
  search(query: Float32Array, k: number, among?: readonly number[]): VectorHit[];
  /** Sparse spaces: the live IDF of each term id, as the ranking uses it (query-side weights). */
  idf?(termIds: readonly number[]): number[];
  /** Writes this index's files into `dir` (each to a temp name, then renamed) and describes them. */
  save(dir: string): Promise<SavedSpace>;
}

export interface IndexKindImpl {
  readonly kind: BuiltIndexKind;
  create(spec: ResolvedSpec): SpaceIndex;
  /** Loads what `save` wrote; throws, with the reason as the message, when it cannot. */
  load(dir: string, spec: ResolvedSpec, saved: SavedSpace): Promise<SpaceIndex>;
}

/**
 * One space in a snapshot's meta.json. `file` is the main file; the kind may add settings
 * (USearch: metric, quantization, connectivity) and files of its own (dense: `vectorsFile`).
 */
export interface SavedSpace extends ResolvedSpec {
  file: string;
  size: number;
  metric: string;
  quantization: string;
  connectivity: number;
  vectorsFile?: string;
}

export function resolveSpec(spec: SpaceIndexSpec): ResolvedSpec {
  return { space: spec.space, dim: spec.dim, modelId: spec.modelId, index: spec.index ?? spaceById(spec.space).index };
}

/**
 * Whether a stored vector of `length` floats can go into the space's index: a dense row has
 * exactly `dim` floats, a sparse or multi row packed pairs (an even count).
 */
export function rowFits(spec: ResolvedSpec, length: number): boolean {
  return spec.index === 'dense' ? length === spec.dim : length % 2 === 0;
}

/** Splits concatenated rows; checks that the lengths add up. */
export function rowOffsets(what: string, keys: readonly number[], rows: Float32Array, lengths: readonly number[]): number[] {
  if (lengths.length !== keys.length) throw new RangeError(`${what}: ${keys.length} keys need as many row lengths, got ${lengths.length}`);
  const offsets: number[] = [];
  let o = 0;
  for (const len of lengths) {
    offsets.push(o);
    o += len;
  }
  if (o !== rows.length) throw new RangeError(`${what}: row lengths add up to ${o}, got ${rows.length} floats`);
  return offsets;
}
