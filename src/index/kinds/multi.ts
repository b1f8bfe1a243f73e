import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { unpackTerms } from '../../embed/keyword.js';
import { loadGloveTable, type GloveTable } from '../../embed/glove-table.js';
import { rowOffsets, type IndexKindImpl, type ResolvedSpec, type SavedSpace, type SpaceIndex } from '../space-index.js';
import type { VectorHit } from '../vector-index.js';

const METRIC = 'maxsim';

/**
 * A late-interaction space (E12): per memory the rows of its words in the bundled GloVe table
 * (src/embed/encoders/late-interaction.ts), scored against a query by MaxSim:
 * Σ_t w_t · max_u cos(t, u) / Σ_t w_t. Each distinct document word's cosines to the query
 * words are computed once per search and shared by every document holding that word, so a
 * search costs (distinct words among the scored documents) × (query words) × 100 multiply-adds
 * plus a lookup per document word. Search ranks fused candidates (`among`); without `among` it
 * scans every document (the bench's E12-alone row).
 */
class MultiSpaceIndex implements SpaceIndex {
  private table: GloveTable | null = null;

  constructor(
    readonly spec: ResolvedSpec,
    private readonly docs: Map<number, Uint32Array> = new Map(),
  ) {}

  size(): number {
    return this.docs.size;
  }

  upsert(keys: readonly number[], rows: Float32Array, lengths: readonly number[]): void {
    const offsets = rowOffsets(`upsert into multi space ${this.spec.space}`, keys, rows, lengths);
    keys.forEach((key, i) => this.docs.set(key, unpackTerms(rows.subarray(offsets[i], offsets[i]! + lengths[i]!)).ids));
  }

  remove(keys: readonly number[]): number {
    let n = 0;
    for (const key of keys) if (this.docs.delete(key)) n++;
    return n;
  }

  search(query: Float32Array, k: number, among?: readonly number[]): VectorHit[] {
    if (k <= 0 || query.length === 0) return [];
    const t = (this.table ??= loadGloveTable());
    const { ids: qRows, weights } = unpackTerms(query);
    const total = weights.reduce((s, w) => s + w, 0);
    if (!(total > 0)) return [];
    const d = t.dim;
    const q = qRows.length;
    // Query word vectors, unit length, as floats once.
    const qv = new Float32Array(q * d);
    for (let j = 0; j < q; j++) for (let i = 0; i < d; i++) qv[j * d + i] = t.rows[qRows[j]! * d + i]! * t.invNorm[qRows[j]!]!;
    const cosOf = new Map<number, Float32Array>();
    const cosines = (row: number): Float32Array => {
      let c = cosOf.get(row);
      if (c) return c;
      c = new Float32Array(q);
      const base = row * d;
      const inv = t.invNorm[row]!;
      for (let j = 0; j < q; j++) {
        let s = 0;
        for (let i = 0; i < d; i++) s += qv[j * d + i]! * t.rows[base + i]!;
        c[j] = s * inv;
      }
      cosOf.set(row, c);
      return c;
    };
    const best = new Float32Array(q);
    const hits: VectorHit[] = [];
    const score = (key: number, rows: Uint32Array) => {
      best.fill(-1);
      for (const row of rows) {
        const c = cosines(row);
        for (let j = 0; j < q; j++) if (c[j]! > best[j]!) best[j] = c[j]!;
      }
      let s = 0;
      for (let j = 0; j < q; j++) s += weights[j]! * Math.max(0, best[j]!);
      hits.push({ key, similarity: s / total });
    };
    if (among) {
      for (const key of new Set(among)) {
        const rows = this.docs.get(key);
        if (rows && rows.length > 0) score(key, rows);
      }
    } else for (const [key, rows] of this.docs) if (rows.length > 0) score(key, rows);
    hits.sort((a, b) => b.similarity - a.similarity || a.key - b.key);
    return hits.slice(0, k);
  }

  async save(dir: string): Promise<SavedSpace> {
    const file = `${this.spec.space}.multi`;
    // [n] then per document [key (f64), length (u32 as f64)], then every document's rows.
    const heads = new Float64Array(1 + 2 * this.docs.size);
    heads[0] = this.docs.size;
    let i = 1;
    let total = 0;
    for (const [key, rows] of this.docs) {
      heads[i++] = key;
      heads[i++] = rows.length;
      total += rows.length;
    }
    const body = new Uint32Array(total);
    let o = 0;
    for (const rows of this.docs.values()) {
      body.set(rows, o);
      o += rows.length;
    }
    await writeFile(join(dir, `${file}.tmp`), Buffer.concat([Buffer.from(heads.buffer), Buffer.from(body.buffer)]));
    await rename(join(dir, `${file}.tmp`), join(dir, file));
    return { ...this.spec, file, size: this.docs.size, metric: METRIC, quantization: 'none', connectivity: 0 };
  }
}

export const multiKind: IndexKindImpl = {
  kind: 'multi',

  create(spec) {
    if (spec.dim !== 0) throw new RangeError(`multi space ${spec.space} has variable-length rows: its dim is 0, got ${spec.dim}`);
    return new MultiSpaceIndex(spec);
  },

  async load(dir, spec, saved) {
    if (saved.metric !== METRIC) throw new Error('index settings changed');
    const buf = await readFile(join(dir, saved.file));
    const copy = new Uint8Array(buf.length);
    copy.set(buf);
    const n = new Float64Array(copy.buffer, 0, 1)[0]!;
    const heads = new Float64Array(copy.buffer, 0, 1 + 2 * n);
    const body = new Uint32Array(copy.buffer, heads.byteLength);
    const docs = new Map<number, Uint32Array>();
    for (let i = 0, o = 0; i < n; i++) {
      const len = heads[2 + 2 * i]!;
      docs.set(heads[1 + 2 * i]!, body.slice(o, o + len));
      o += len;
    }
    return new MultiSpaceIndex(spec, docs);
  },
};
