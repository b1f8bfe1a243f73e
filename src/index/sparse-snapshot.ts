/**
 * The E13 (BM25) index's snapshot file: header [magic u32, docCount u32, totalTerms u32, 0 u32],
 * then keys as f64 (docCount), term counts as u32 (docCount), term ids as u32 (totalTerms), tfs as
 * f32 (totalTerms). The index builds its postings from the documents on load.
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

/** A snapshot's columns: document i is `counts[i]` entries of ids/tfs, after those of the documents before it. */
export interface SparseColumns {
  keys: Float64Array<ArrayBuffer>;
  counts: Uint32Array<ArrayBuffer>;
  ids: Uint32Array<ArrayBuffer>;
  tfs: Float32Array<ArrayBuffer>;
}

/** The columns of a snapshot, in file order; throws on a file that is not one. */
export function readSparse(data: Uint8Array): SparseColumns {
  if (data.byteLength < 16) throw new Error('sparse snapshot too short');
  // Views into the file's own buffer when it is aligned (a whole file read is); else a copy.
  let buf = data.buffer as ArrayBuffer;
  let at = data.byteOffset;
  if (at % 8 !== 0) {
    buf = new ArrayBuffer(data.byteLength);
    new Uint8Array(buf).set(data);
    at = 0;
  }
  const head = new Uint32Array(buf, at, 4);
  if (head[0] !== SNAPSHOT_MAGIC) throw new Error('not a sparse index snapshot');
  const docCount = head[1]!;
  const total = head[2]!;
  if (data.byteLength !== 16 + docCount * 12 + total * 8) throw new Error('sparse snapshot has the wrong length');
  const idsAt = at + 16 + docCount * 12;
  return {
    keys: new Float64Array(buf, at + 16, docCount),
    counts: new Uint32Array(buf, at + 16 + docCount * 8, docCount),
    ids: new Uint32Array(buf, idsAt, total),
    tfs: new Float32Array(buf, idsAt + total * 4, total),
  };
}

/** The documents of columns, in file order. */
export function* documentsOf({ keys, counts, ids, tfs }: SparseColumns): Generator<SparseDocument> {
  let o = 0;
  for (let i = 0; i < keys.length; i++) {
    const c = counts[i]!;
    yield { key: keys[i]!, terms: ids.subarray(o, o + c), tfs: tfs.subarray(o, o + c) };
    o += c;
  }
}

/**
 * Whether columns are what `serializeSparse` writes of a live index: unique keys, each
 * document's term ids strictly increasing, every weight positive and finite. Those an index
 * can take whole; anything else is loaded document by document (sorted, merged, filtered).
 */
export function isCanonical({ keys, counts, ids, tfs }: SparseColumns): boolean {
  if (new Set(keys).size !== keys.length) return false;
  let e = 0;
  for (let i = 0; i < counts.length; i++) {
    let prev = -1;
    for (const end = e + counts[i]!; e < end; e++) {
      const tf = tfs[e]!;
      if (ids[e]! <= prev || !(tf > 0) || tf === Infinity) return false;
      prev = ids[e]!;
    }
  }
  return true;
}
