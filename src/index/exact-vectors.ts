import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
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

/**
 * Rows live in fixed blocks that are never reallocated: growing by copying would leave the old
 * arrays behind as garbage in the index thread, which in a measurement cost more memory than
 * the rows themselves.
 */
const BLOCK_ROWS = 4_096;

export class ExactVectors {
  private readonly blocks: Int8Array[] = [];
  /** Key by row, per block; FREE for a row whose key was deleted (its slot is reused). */
  private readonly blockKeys: Float64Array[] = [];
  private readonly rowOf = new Map<number, number>();
  private free: number[] = [];
  private rows = 0;

  constructor(readonly dim: number) {}

  get size(): number {
    return this.rowOf.size;
  }

  set(key: number, vector: Float32Array): void {
    if (vector.length !== this.dim) throw new RangeError(`exact vectors: ${vector.length} dimensions, expected ${this.dim}`);
    let row = this.rowOf.get(key);
    if (row === undefined) {
      row = this.free.pop() ?? this.rows++;
      if (row >= this.blocks.length * BLOCK_ROWS) {
        this.blocks.push(new Int8Array(BLOCK_ROWS * this.dim));
        this.blockKeys.push(new Float64Array(BLOCK_ROWS).fill(FREE));
      }
      this.rowOf.set(key, row);
      this.blockKeys[Math.floor(row / BLOCK_ROWS)]![row % BLOCK_ROWS] = key;
    }
    quantize(vector, this.blocks[Math.floor(row / BLOCK_ROWS)]!, (row % BLOCK_ROWS) * this.dim);
  }

  delete(key: number): boolean {
    const row = this.rowOf.get(key);
    if (row === undefined) return false;
    this.rowOf.delete(key);
    this.blockKeys[Math.floor(row / BLOCK_ROWS)]![row % BLOCK_ROWS] = FREE;
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
    // The binding reads from the start of each buffer (it ignores a view's offset): fresh arrays
    // or whole blocks only.
    const q = new Int8Array(dim);
    if (k <= 0 || !quantize(query, q)) return [];
    const hits: VectorHit[] = [];
    if (among) {
      const rows: number[] = [];
      const seen = new Set<number>();
      for (const key of among) {
        const row = this.rowOf.get(key);
        if (row === undefined || seen.has(key)) continue;
        seen.add(key);
        rows.push(row);
      }
      const data = new Int8Array(rows.length * dim);
      const keys = new Float64Array(rows.length);
      rows.forEach((row, i) => {
        const at = (row % BLOCK_ROWS) * dim;
        data.set(this.blocks[Math.floor(row / BLOCK_ROWS)]!.subarray(at, at + dim), i * dim);
        keys[i] = this.blockKeys[Math.floor(row / BLOCK_ROWS)]![row % BLOCK_ROWS]!;
      });
      collect(hits, data, keys, rows.length, q, dim, k);
    } else {
      // Freed rows still hold old codes: ask each block for enough to drop them and keep k.
      this.blocks.forEach((block, b) => {
        const n = Math.min(BLOCK_ROWS, this.rows - b * BLOCK_ROWS);
        collect(hits, block, this.blockKeys[b]!, n, q, dim, k + this.free.length);
      });
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
      const at = (row % BLOCK_ROWS) * this.dim;
      keys[i] = key;
      codes.set(this.blocks[Math.floor(row / BLOCK_ROWS)]!.subarray(at, at + this.dim), i * this.dim);
      i++;
    }
    return new Uint8Array(buf);
  }

  /**
   * Reads a file `serialize()` wrote straight into the rows' blocks, each byte written once:
   * fresh memory costs a page fault per page on first touch, and reading the file into a buffer,
   * copying that into an aligned one and then into the blocks touched it three times (E9 at
   * 100k memories, 103 MB: 1.3 s; read once: ~0.3 s).
   */
  static readFile(path: string): ExactVectors {
    const fd = openSync(path, 'r');
    try {
      const byteLength = fstatSync(fd).size;
      const readAt = (into: Uint8Array, at: number) => {
        for (let done = 0; done < into.length;) {
          const n = readSync(fd, into, done, into.length - done, at + done);
          if (n === 0) throw new Error('exact vectors file ended early');
          done += n;
        }
      };
      if (byteLength < HEADER_BYTES) throw new Error('exact vectors file too short');
      const head = new Uint32Array(4);
      readAt(new Uint8Array(head.buffer), 0);
      const [magic, dim, count] = head as unknown as [number, number, number];
      if (magic !== MAGIC) throw new Error('not an exact vectors file');
      if (byteLength !== HEADER_BYTES + count * 8 + count * dim) throw new Error('exact vectors file has the wrong length');
      const out = new ExactVectors(dim);
      const keys = new Float64Array(count);
      readAt(new Uint8Array(keys.buffer), HEADER_BYTES);
      const codesAt = HEADER_BYTES + count * 8;
      for (let start = 0; start < count; start += BLOCK_ROWS) {
        const n = Math.min(BLOCK_ROWS, count - start);
        const block = new Int8Array(BLOCK_ROWS * dim);
        readAt(new Uint8Array(block.buffer, 0, n * dim), codesAt + start * dim);
        const blockKeys = new Float64Array(BLOCK_ROWS).fill(FREE);
        blockKeys.set(keys.subarray(start, start + n));
        out.blocks.push(block);
        out.blockKeys.push(blockKeys);
      }
      for (let row = 0; row < count; row++) out.rowOf.set(keys[row]!, row);
      out.rows = count;
      return out;
    } finally {
      closeSync(fd);
    }
  }
}

/** Exact top-`wanted` of the first `n` rows of `data` (USearch, native), appended to `hits`; freed rows dropped. */
function collect(hits: VectorHit[], data: Int8Array, keys: Float64Array, n: number, q: Int8Array, dim: number, wanted: number): void {
  wanted = Math.min(n, wanted);
  if (wanted <= 0) return;
  const found = exactSearch(data.subarray(0, n * dim), q, dim, wanted, MetricKind.Cos, 1);
  for (let i = 0; i < found.keys.length; i++) {
    const key = keys[Number(found.keys[i])]!;
    if (key === FREE) continue;
    const similarity = 1 - found.distances[i]!;
    // A zero row has no direction: no similarity.
    hits.push({ key, similarity: Number.isFinite(similarity) ? similarity : 0 });
  }
}
