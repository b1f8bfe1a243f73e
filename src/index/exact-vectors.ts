import usearch from 'usearch';
import type { VectorHit } from './vector-index.js';

const { exactSearch, MetricKind } = usearch;

/**
 * A compact copy of a dense space's vectors for exact scoring: what a filtered search needs
 * when the filter allows few entries. HNSW cannot do that cheaply (the binding has neither a
 * filter predicate nor a vector getter, and widening k until a 3-entry project shows up walks
 * most of the graph: about 0.5 s at 100k), while scoring a few thousand listed vectors takes a
 * few milliseconds.
 *
 * Rows are int8 (one byte per dimension: a quarter of f32, half of the index's f16), each
 * scaled so its largest component is ±127; cosine is scale-free, so the scale is not kept. The
 * query is quantised the same way and USearch's native exact search does the arithmetic (5–8×
 * faster than a JavaScript loop here). The rounding moves cosines by about 1e-3, the order of
 * the index's own f16 storage.
 */
const MAGIC = 0x32384943; // "CI82": int8 rows, version 2
const HEADER_BYTES = 16;
const FREE = -1;

function quantize(v: Float32Array, out: Int8Array, at = 0): boolean {
  let max = 0;
  for (let i = 0; i < v.length; i++) max = Math.max(max, Math.abs(v[i]!));
  const scale = max > 0 ? 127 / max : 0;
  for (let i = 0; i < v.length; i++) out[at + i] = Math.round(v[i]! * scale);
  return max > 0;
}

export class ExactVectors {
  private codes: Int8Array;
  /** Key by row; FREE for a row whose key was deleted (its slot is reused). */
  private keyAt: Float64Array;
  private readonly rowOf = new Map<number, number>();
  private free: number[] = [];
  private rows = 0;

  constructor(readonly dim: number, capacity = 64) {
    this.codes = new Int8Array(capacity * dim);
    this.keyAt = new Float64Array(capacity);
  }

  get size(): number {
    return this.rowOf.size;
  }

  set(key: number, vector: Float32Array): void {
    if (vector.length !== this.dim) throw new RangeError(`exact vectors: ${vector.length} dimensions, expected ${this.dim}`);
    let row = this.rowOf.get(key);
    if (row === undefined) {
      row = this.free.pop() ?? this.rows++;
      if (row >= this.keyAt.length) this.grow(row + 1);
      this.rowOf.set(key, row);
      this.keyAt[row] = key;
    }
    quantize(vector, this.codes, row * this.dim);
  }

  delete(key: number): boolean {
    const row = this.rowOf.get(key);
    if (row === undefined) return false;
    this.rowOf.delete(key);
    this.keyAt[row] = FREE;
    this.free.push(row);
    return true;
  }

  /**
   * Top k by cosine, best first, ties by key: of the listed keys (those without a vector are
   * skipped), or of every vector when `among` is omitted.
   */
  search(query: Float32Array, k: number, among?: readonly number[]): VectorHit[] {
    const dim = this.dim;
    if (query.length !== dim) throw new RangeError(`exact search: query has ${query.length} dimensions, the index ${dim}`);
    k = Math.floor(k);
    // The binding reads from the start of each buffer (it ignores a view's offset): fresh arrays only.
    const q = new Int8Array(dim);
    if (k <= 0 || !quantize(query, q)) return [];
    let data: Int8Array;
    let keys: Float64Array;
    if (among) {
      const rows: number[] = [];
      const seen = new Set<number>();
      for (const key of among) {
        const row = this.rowOf.get(key);
        if (row === undefined || seen.has(key)) continue;
        seen.add(key);
        rows.push(row);
      }
      data = new Int8Array(rows.length * dim);
      keys = new Float64Array(rows.length);
      rows.forEach((row, i) => {
        data.set(this.codes.subarray(row * dim, (row + 1) * dim), i * dim);
        keys[i] = this.keyAt[row]!;
      });
    } else {
      data = this.codes;
      keys = this.keyAt;
    }
    const n = among ? keys.length : this.rows;
    // Freed rows still hold old codes: ask for enough to drop them and keep k.
    const wanted = Math.min(n, among ? k : k + this.free.length);
    if (wanted === 0) return [];
    const found = exactSearch(data.subarray(0, n * dim), q, dim, wanted, MetricKind.Cos, 1) as { keys: BigUint64Array; distances: Float32Array };
    const hits: VectorHit[] = [];
    for (let i = 0; i < found.keys.length; i++) {
      const key = keys[Number(found.keys[i])]!;
      if (key === FREE) continue;
      const similarity = 1 - found.distances[i]!;
      // A zero row has no direction: no similarity.
      hits.push({ key, similarity: Number.isFinite(similarity) ? similarity : 0 });
    }
    hits.sort((a, b) => b.similarity - a.similarity || a.key - b.key);
    return hits.length > k ? hits.slice(0, k) : hits;
  }

  /** Header [magic, dim, count, 0] (u32), keys (f64), codes (i8): live rows only. */
  serialize(): Uint8Array {
    const count = this.rowOf.size;
    const buf = new ArrayBuffer(HEADER_BYTES + count * 8 + count * this.dim);
    new Uint32Array(buf, 0, 4).set([MAGIC, this.dim, count, 0]);
    const keys = new Float64Array(buf, HEADER_BYTES, count);
    const codes = new Int8Array(buf, HEADER_BYTES + count * 8);
    let i = 0;
    for (const [key, row] of this.rowOf) {
      keys[i] = key;
      codes.set(this.codes.subarray(row * this.dim, (row + 1) * this.dim), i * this.dim);
      i++;
    }
    return new Uint8Array(buf);
  }

  static deserialize(data: Uint8Array): ExactVectors {
    // Copy: the file buffer may be unaligned or pooled.
    const buf = new ArrayBuffer(data.byteLength);
    new Uint8Array(buf).set(data);
    if (buf.byteLength < HEADER_BYTES) throw new Error('exact vectors file too short');
    const [magic, dim, count] = new Uint32Array(buf, 0, 4) as unknown as [number, number, number];
    if (magic !== MAGIC) throw new Error('not an exact vectors file');
    if (buf.byteLength !== HEADER_BYTES + count * 8 + count * dim) throw new Error('exact vectors file has the wrong length');
    const out = new ExactVectors(dim, Math.max(count, 64));
    out.keyAt.set(new Float64Array(buf, HEADER_BYTES, count));
    out.codes.set(new Int8Array(buf, HEADER_BYTES + count * 8));
    for (let row = 0; row < count; row++) out.rowOf.set(out.keyAt[row]!, row);
    out.rows = count;
    return out;
  }

  private grow(minRows: number): void {
    const rows = Math.max(minRows, this.keyAt.length * 2);
    const codes = new Int8Array(rows * this.dim);
    codes.set(this.codes);
    this.codes = codes;
    const keyAt = new Float64Array(rows);
    keyAt.set(this.keyAt);
    this.keyAt = keyAt;
  }
}
