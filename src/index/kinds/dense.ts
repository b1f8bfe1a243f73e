import { rename, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Index, MetricKind, ScalarKind } from 'usearch';
import { spaceById } from '../../embed/spaces/registry.js';
import { ExactVectors } from '../exact-vectors.js';
import { rowOffsets, type IndexKindImpl, type ResolvedSpec, type SavedSpace, type SpaceIndex } from '../space-index.js';
import type { VectorHit } from '../vector-index.js';

// Settings from the stack check (research/stack-notes.md §4, 100k × 384-d, low-rank data like
// real embeddings): connectivity 16 + expansion_add 128 (a space may set its own:
// `hnswExpansionAdd`) build the graph; expansion_search 128
// gave recall@10 0.96 (64 gave 0.87, 256 gave 0.99 at half the QPS). f16 kept f32's recall at
// about half the memory; i8 lost recall on clustered data.
const METRIC = MetricKind.Cos;
const QUANTIZATION = ScalarKind.F16;
const CONNECTIVITY = 16;
const EXPANSION_SEARCH = 128;
/**
 * Threads for a batch add. Kept the same for every add: the binding sizes its per-thread
 * contexts when it reserves capacity, so mixing thread counts would leave too few.
 */
const ADD_THREADS = Math.max(1, Math.min(4, availableParallelism()));
/** A single query gains nothing from more threads. */
const SEARCH_THREADS = 1;

function newHnsw(spec: ResolvedSpec): Index {
  return new Index({
    dimensions: spec.dim,
    metric: METRIC,
    quantization: QUANTIZATION,
    connectivity: CONNECTIVITY,
    expansion_add: spaceById(spec.space).hnswExpansionAdd,
    expansion_search: EXPANSION_SEARCH,
    multi: false,
  });
}

/**
 * A dense space: USearch HNSW for searches over the whole space, plus an int8 copy of every
 * vector (src/index/exact-vectors.ts) for exact searches among a given key set.
 */
class DenseIndex implements SpaceIndex {
  constructor(
    readonly spec: ResolvedSpec,
    private readonly hnsw: Index = newHnsw(spec),
    private readonly exact: ExactVectors = new ExactVectors(spec.dim),
  ) {}

  size(): number {
    return this.hnsw.size();
  }

  upsert(keys: readonly number[], rows: Float32Array, lengths: readonly number[]): void {
    const { space, dim } = this.spec;
    rowOffsets(`upsert into ${space}`, keys, rows, lengths);
    const wrong = lengths.findIndex((len) => len !== dim);
    if (wrong >= 0) throw new RangeError(`upsert into ${space}: vector ${wrong} has ${lengths[wrong]} dimensions, the index ${dim}`);
    if (keys.length === 0) return;
    // The last vector of a key repeated within one batch wins, as if upserted one by one.
    const lastRow = new Map<number, number>();
    keys.forEach((key, row) => lastRow.set(key, row));
    let bigKeys: BigUint64Array;
    let flat: Float32Array;
    if (lastRow.size === keys.length) {
      bigKeys = BigUint64Array.from(keys, BigInt);
      flat = rows;
    } else {
      bigKeys = new BigUint64Array(lastRow.size);
      flat = new Float32Array(lastRow.size * dim);
      let i = 0;
      for (const row of lastRow.values()) {
        bigKeys[i] = BigInt(keys[row]!);
        flat.set(rows.subarray(row * dim, (row + 1) * dim), i * dim);
        i++;
      }
    }
    // USearch rejects duplicate keys, so replacing means remove then add. contains() first:
    // remove() is far slower (about 0.5 ms per key in the stack check) and most keys are new.
    const present = this.hnsw.contains(bigKeys) as boolean[];
    const existing = bigKeys.filter((_, i) => present[i]);
    if (existing.length > 0) this.hnsw.remove(existing);
    // Capacity: the binding reserves ceil2(size + batch) before adding whenever the batch would
    // not fit, so capacity doubles ahead of the size and an add never fails for lack of room.
    // (2.25.3 exposes no reserve() to JavaScript; the test grows an index across several doublings.)
    this.hnsw.add(bigKeys, flat, ADD_THREADS);
    for (let i = 0; i < bigKeys.length; i++) this.exact.set(Number(bigKeys[i]), flat.subarray(i * dim, (i + 1) * dim));
  }

  remove(keys: readonly number[]): number {
    if (keys.length === 0) return 0;
    const bigKeys = BigUint64Array.from(keys, BigInt);
    const present = this.hnsw.contains(bigKeys) as boolean[];
    const existing = bigKeys.filter((_, i) => present[i]);
    if (existing.length > 0) this.hnsw.remove(existing);
    for (const key of keys) this.exact.delete(key);
    return existing.length;
  }

  search(query: Float32Array, k: number, among?: readonly number[]): VectorHit[] {
    const size = this.hnsw.size();
    if (size === 0 || k <= 0) return [];
    if (query.length !== this.spec.dim) {
      throw new RangeError(`search in ${this.spec.space}: query has ${query.length} dimensions, the index ${this.spec.dim}`);
    }
    if (among) return this.exact.search(query, k, among);
    // Asking for the whole index: HNSW would walk all of it and still miss a few nodes (about
    // 0.02 % at 100k), while a scan is both cheaper and complete, so "fewer hits than k" means
    // every vector was seen. Filtered searches rely on that when they widen.
    if (k >= size) return this.exact.search(query, k);
    const matches = this.hnsw.search(query, Math.min(Math.floor(k), size), SEARCH_THREADS);
    const hits: VectorHit[] = [];
    for (let i = 0; i < matches.keys.length; i++) {
      hits.push({ key: Number(matches.keys[i]), similarity: 1 - matches.distances[i]! });
    }
    return hits;
  }

  async save(dir: string): Promise<SavedSpace> {
    const file = `${this.spec.space}.usearch`;
    const vectorsFile = `${this.spec.space}.i8`;
    this.hnsw.save(join(dir, `${file}.tmp`));
    await rename(join(dir, `${file}.tmp`), join(dir, file));
    await writeFile(join(dir, `${vectorsFile}.tmp`), this.exact.serialize());
    await rename(join(dir, `${vectorsFile}.tmp`), join(dir, vectorsFile));
    return { ...this.spec, file, vectorsFile, size: this.hnsw.size(), metric: METRIC, quantization: QUANTIZATION, connectivity: CONNECTIVITY };
  }
}

export const denseKind: IndexKindImpl = {
  kind: 'dense',

  create(spec) {
    if (!Number.isInteger(spec.dim) || spec.dim <= 0) throw new RangeError(`dense space ${spec.space} needs a positive dim, got ${spec.dim}`);
    return new DenseIndex(spec);
  },

  async load(dir, spec, saved) {
    if (saved.metric !== String(METRIC) || saved.quantization !== String(QUANTIZATION) || saved.connectivity !== CONNECTIVITY) throw new Error('index settings changed');
    // Snapshots of format 1 had no exact-scoring copy: the feed rebuilds both.
    if (!saved.vectorsFile) throw new Error('snapshot has no exact-scoring vectors (format 1)');
    const hnsw = newHnsw(spec);
    hnsw.load(join(dir, saved.file));
    // load() takes the file's own header, whatever the constructor said.
    if (hnsw.dimensions() !== spec.dim) throw new Error(`file has dimension ${hnsw.dimensions()}`);
    const exact = ExactVectors.readFile(join(dir, saved.vectorsFile));
    if (exact.dim !== spec.dim || exact.size !== hnsw.size()) throw new Error(`exact vectors (${exact.size} × ${exact.dim}) do not match the index (${hnsw.size()} × ${spec.dim})`);
    return new DenseIndex(spec, hnsw, exact);
  },
};
