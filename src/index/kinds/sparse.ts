import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { unpackTerms } from '../../embed/keyword.js';
import { SparseIndex } from '../sparse.js';
import { rowOffsets, type IndexKindImpl, type ResolvedSpec, type SavedSpace, type SpaceIndex } from '../space-index.js';
import type { VectorHit } from '../vector-index.js';

const METRIC = 'bm25';

/** A sparse space (E13): packed term vectors in a BM25 inverted index (src/index/sparse.ts). */
class SparseSpaceIndex implements SpaceIndex {
  constructor(
    readonly spec: ResolvedSpec,
    private readonly index: SparseIndex = new SparseIndex(),
  ) {}

  size(): number {
    return this.index.size;
  }

  upsert(keys: readonly number[], rows: Float32Array, lengths: readonly number[]): void {
    const offsets = rowOffsets(`upsert into sparse space ${this.spec.space}`, keys, rows, lengths);
    keys.forEach((key, i) => {
      // Later rows of a repeated key win, as upsert replaces.
      const { ids, weights } = unpackTerms(rows.subarray(offsets[i], offsets[i]! + lengths[i]!));
      this.index.upsert(key, ids, weights);
    });
  }

  remove(keys: readonly number[]): number {
    let n = 0;
    for (const key of keys) if (this.index.remove(key)) n++;
    return n;
  }

  search(query: Float32Array, k: number, among?: readonly number[]): VectorHit[] {
    // The query is a packed term vector from the same encoder; its weights are not used.
    if (k <= 0 || query.length === 0) return [];
    const { ids } = unpackTerms(query);
    return among ? this.index.searchAmong(ids, k, among) : this.index.search(ids, k);
  }

  idf(termIds: readonly number[]): number[] {
    return termIds.map((t) => this.index.idf(t));
  }

  async save(dir: string): Promise<SavedSpace> {
    const file = `${this.spec.space}.bm25`;
    await writeFile(join(dir, `${file}.tmp`), this.index.serialize());
    await rename(join(dir, `${file}.tmp`), join(dir, file));
    return { ...this.spec, file, size: this.index.size, metric: METRIC, quantization: 'none', connectivity: 0 };
  }
}

export const sparseKind: IndexKindImpl = {
  kind: 'sparse',

  create(spec) {
    if (spec.dim !== 0) throw new RangeError(`sparse space ${spec.space} has variable-length rows: its dim is 0, got ${spec.dim}`);
    return new SparseSpaceIndex(spec);
  },

  async load(dir, spec, saved) {
    if (saved.metric !== METRIC) throw new Error('index settings changed');
    return new SparseSpaceIndex(spec, SparseIndex.deserialize(await readFile(join(dir, saved.file))));
  },
};
