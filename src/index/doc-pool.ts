/**
 * The per-document arrays of the BM25 index (src/index/sparse.ts), packed: every document's
 * sorted term ids, weights and postings positions live in three flat arrays shared by all
 * documents, found by its slot's (start, count). One object per document with three typed arrays
 * cost about 1.3 KB of V8 heap per document and index whatever its length (four sparse spaces:
 * ~500 MB at 100k memories, past the index thread's 4 GB heap limit before 1M), and every major
 * GC marked them all; packed, a document costs its 12 bytes per term and 8 per slot.
 *
 * A released range stays as garbage until it is as large as the live entries; the next
 * allocation then compacts (documents keep their slots, only their starts move).
 */
export class DocPool {
  terms = new Uint32Array(1024);
  tfs = new Float32Array(1024);
  pos = new Uint32Array(1024);
  /** Per slot: where its entries start, and how many (0 for a free slot). */
  start = new Uint32Array(16);
  count = new Uint32Array(16);
  private end = 0;
  private garbage = 0;

  /** Entries in use by live documents. */
  get live(): number {
    return this.end - this.garbage;
  }

  /**
   * A range of `n` entries for `slot` (whose previous range, if any, was released): the offset
   * of its first entry in terms/tfs/pos. May move other documents' ranges, so a caller never
   * keeps an offset across calls.
   */
  alloc(slot: number, n: number): number {
    if (slot >= this.start.length) {
      const size = Math.max(slot + 1, this.start.length * 2);
      this.start = resized(this.start, size);
      this.count = resized(this.count, size);
    }
    if (this.end + n > this.terms.length) {
      if (this.garbage > 0 && this.garbage >= this.live) this.compact();
      // By half again, not double: the arrays are most of the index's memory.
      if (this.end + n > this.terms.length) this.resize(Math.max(this.end + n, Math.ceil(this.terms.length * 1.5)));
    }
    const at = this.end;
    this.start[slot] = at;
    this.count[slot] = n;
    this.end += n;
    return at;
  }

  /**
   * An empty pool takes whole documents in slot order (a snapshot's, on load): slot i gets the
   * next `counts[i]` entries of `terms` and `tfs`, with the room trim() would leave. `pos` is
   * the caller's to fill.
   */
  adopt(terms: Uint32Array<ArrayBuffer>, tfs: Float32Array<ArrayBuffer>, counts: Uint32Array<ArrayBuffer>): void {
    const size = Math.ceil(terms.length * TRIM_HEADROOM);
    this.terms = resized(terms, size);
    this.tfs = resized(tfs, size);
    this.pos = new Uint32Array(size);
    this.start = new Uint32Array(Math.max(16, counts.length));
    this.count = resized(counts, this.start.length);
    let at = 0;
    for (let slot = 0; slot < counts.length; slot++) {
      this.start[slot] = at;
      at += counts[slot]!;
    }
    this.end = at;
    this.garbage = 0;
  }

  release(slot: number): void {
    this.garbage += this.count[slot]!;
    this.count[slot] = 0;
  }

  /** Index of the first term ≥ t in the slot's sorted terms (its end when none). */
  lowerBound(slot: number, t: number): number {
    let lo = this.start[slot]!;
    let hi = lo + this.count[slot]!;
    const terms = this.terms;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (terms[mid]! < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Offset of term t in the slot's range, or -1 when the document does not hold it. */
  find(slot: number, t: number): number {
    const at = this.lowerBound(slot, t);
    return at < this.start[slot]! + this.count[slot]! && this.terms[at] === t ? at : -1;
  }

  /** Gives back the room beyond TRIM_HEADROOM (a loaded snapshot's documents are all there is until the next write). */
  trim(): void {
    if (this.garbage > 0) this.compact();
    this.resize(Math.ceil(this.end * TRIM_HEADROOM));
  }

  /** Moves every live range to the front, in slot order. */
  private compact(): void {
    const terms = new Uint32Array(this.terms.length);
    const tfs = new Float32Array(this.tfs.length);
    const pos = new Uint32Array(this.pos.length);
    let at = 0;
    for (let slot = 0; slot < this.start.length; slot++) {
      const n = this.count[slot]!;
      if (n === 0) continue;
      const from = this.start[slot]!;
      terms.set(this.terms.subarray(from, from + n), at);
      tfs.set(this.tfs.subarray(from, from + n), at);
      pos.set(this.pos.subarray(from, from + n), at);
      this.start[slot] = at;
      at += n;
    }
    this.terms = terms;
    this.tfs = tfs;
    this.pos = pos;
    this.end = at;
    this.garbage = 0;
  }

  private resize(size: number): void {
    this.terms = resized(this.terms, size);
    this.tfs = resized(this.tfs, size);
    this.pos = resized(this.pos, size);
  }
}

/**
 * Room a trimmed pool keeps for what comes next: trimmed to the entry, the first write after a
 * restart paid for growing every array of the index (~150-250 ms at 100k memories).
 */
export const TRIM_HEADROOM = 1.25;

/** A copy of `a` with `size` entries (cut or zero-filled). */
export function resized<T extends Uint32Array | Float32Array>(a: T, size: number): T {
  const next = new (a.constructor as new (n: number) => T)(size);
  next.set(size < a.length ? a.subarray(0, size) : a);
  return next;
}
