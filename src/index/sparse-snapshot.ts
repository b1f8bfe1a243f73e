/**
 * The E13 (BM25) index's snapshot file: header [magic u32, docCount u32, totalTerms u32, 0 u32],
 * then keys as f64 (docCount), term counts as u32 (docCount), term ids as u32 (totalTerms), tfs as
 * f32 (totalTerms). The index rebuilds its postings from the documents on load.
 */
const SNAPSHOT_MAGIC = 0x31334d42; // "BM31" little endian-ish tag, version 1

export interface SparseDocument {
  key: number;
  /** Sorted, unique. */
  terms: Uint32Array;
  tfs: Float32Array;
}

export function serializeSparse(docs: readonly SparseDocument[]): Uint8Array {
  const total = docs.reduce((s, d) => s + d.terms.length, 0);
  const bytes = 16 + docs.length * 8 + docs.length * 4 + total * 8;
  const buf = new ArrayBuffer(bytes);
  const head = new Uint32Array(buf, 0, 4);
  head[0] = SNAPSHOT_MAGIC;
  head[1] = docs.length;
  head[2] = total;
  const keys = new Float64Array(buf, 16, docs.length);
  const counts = new Uint32Array(buf, 16 + docs.length * 8, docs.length);
  const idsAt = 16 + docs.length * 12;
  const ids = new Uint32Array(buf, idsAt, total);
  const tfs = new Float32Array(buf, idsAt + total * 4, total);
  let o = 0;
  docs.forEach((d, i) => {
    keys[i] = d.key;
    counts[i] = d.terms.length;
    ids.set(d.terms, o);
    tfs.set(d.tfs, o);
    o += d.terms.length;
  });
  return new Uint8Array(buf);
}

/** The documents of a snapshot, in file order; throws on a file that is not one. */
export function* parseSparse(data: Uint8Array): Generator<SparseDocument> {
  // Copy: the file buffer may be unaligned or pooled.
  const buf = new ArrayBuffer(data.byteLength);
  new Uint8Array(buf).set(data);
  if (buf.byteLength < 16) throw new Error('sparse snapshot too short');
  const head = new Uint32Array(buf, 0, 4);
  if (head[0] !== SNAPSHOT_MAGIC) throw new Error('not a sparse index snapshot');
  const docCount = head[1]!;
  const total = head[2]!;
  if (buf.byteLength !== 16 + docCount * 12 + total * 8) throw new Error('sparse snapshot has the wrong length');
  const keys = new Float64Array(buf, 16, docCount);
  const counts = new Uint32Array(buf, 16 + docCount * 8, docCount);
  const idsAt = 16 + docCount * 12;
  const ids = new Uint32Array(buf, idsAt, total);
  const tfs = new Float32Array(buf, idsAt + total * 4, total);
  let o = 0;
  for (let i = 0; i < docCount; i++) {
    const c = counts[i]!;
    yield { key: keys[i]!, terms: ids.subarray(o, o + c), tfs: tfs.subarray(o, o + c) };
    o += c;
  }
}
