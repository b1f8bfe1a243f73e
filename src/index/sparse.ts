import { DocPool } from './doc-pool.js';
import { PostingsPool } from './postings-pool.js';
import { documentsOf, isCanonical, readSparse, serializeSparse, type SparseColumns, type SparseDocument } from './sparse-snapshot.js';
import { kthLargest, topHits } from './top-k.js';
import type { VectorHit } from './vector-index.js';

/**
 * The E13 inverted index, ranked by Okapi BM25. Pure TypeScript, held by the index thread
 * (workers/index.ts) next to the USearch indexes, fed by the same embeddings feed.
 *
 * Documents live in slots (reused after removal). Each term's postings are (slot, tf) pairs
 * (packed for all terms: src/index/postings-pool.ts); each document keeps its sorted term ids
 * and, per term, its position in that term's postings (packed for all documents:
 * src/index/doc-pool.ts), so removal is a swap-with-last per term (O(terms · log)), never a
 * scan of a long postings list.
 *
 *   idf(t)    = ln(1 + (N − df + 0.5) / (df + 0.5))            (never negative)
 *   score(d)  = Σ_{t ∈ q} idf(t) · tf·(k1 + 1) / (tf + k1·(1 − b + b·dl/avgdl))
 *
 * with dl the sum of a document's term frequencies and avgdl the mean over documents. Each
 * distinct query term counts once (query term frequencies are ignored).
 */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** Slack on the pruning bound: far above float rounding of a few summed terms, far below a term's weight. */
const PRUNE_MARGIN = 1e-9;

export class SparseIndex {
  private readonly postings = new PostingsPool();
  private readonly slotOf = new Map<number, number>();
  /** Per slot: sorted term ids, their tfs, and pos (this document's index in each term's postings). */
  private readonly pool = new DocPool();
  /** Slots ever used; those in `free` hold no document. */
  private slotCount = 0;
  private free: number[] = [];
  private totalLen = 0;
  /** Document length by slot, for the search loop (a typed array, not a pointer chase per posting). */
  private lens = new Float32Array(16);
  /** Key by slot, for the same reason. */
  private keyOf = new Float64Array(16);
  // Scratch for search, sized to the slot count.
  private acc = new Float64Array(0);
  private touched = new Uint32Array(0);

  constructor(
    readonly k1: number = BM25_K1,
    readonly b: number = BM25_B,
  ) {}

  get size(): number {
    return this.slotOf.size;
  }

  has(key: number): boolean {
    return this.slotOf.has(key);
  }

  /** Inserts or replaces a document. `ids` need not be sorted; a repeated id sums its weights. */
  upsert(key: number, ids: ArrayLike<number>, tfs: ArrayLike<number>): void {
    if (ids.length !== tfs.length) throw new RangeError(`upsert ${key}: ${ids.length} term ids but ${tfs.length} weights`);
    this.remove(key);
    const merged = new Map<number, number>();
    for (let i = 0; i < ids.length; i++) {
      const w = tfs[i]!;
      if (!(w > 0) || !Number.isFinite(w)) continue;
      const id = ids[i]! >>> 0;
      merged.set(id, (merged.get(id) ?? 0) + w);
    }
    const terms = Uint32Array.from(merged.keys()).sort();
    const slot = this.free.pop() ?? this.slotCount++;
    const at = this.pool.alloc(slot, terms.length);
    const { terms: docTerms, tfs: docTfs, pos } = this.pool;
    docTerms.set(terms, at);
    let len = 0;
    for (let j = 0; j < terms.length; j++) {
      const i = at + j;
      const t = terms[j]!;
      const tf = merged.get(t)!;
      docTfs[i] = tf;
      len += docTfs[i];
      pos[i] = this.postings.add(t, slot, docTfs[i]);
    }
    if (slot >= this.lens.length) {
      const grown = new Float32Array(Math.max(slot + 1, this.lens.length * 2));
      grown.set(this.lens);
      this.lens = grown;
      const keys = new Float64Array(grown.length);
      keys.set(this.keyOf);
      this.keyOf = keys;
    }
    this.lens[slot] = len;
    this.keyOf[slot] = key;
    this.slotOf.set(key, slot);
    this.totalLen += len;
  }

  /** Whether the key was present. */
  remove(key: number): boolean {
    const slot = this.slotOf.get(key);
    if (slot === undefined) return false;
    const pool = this.pool;
    for (let i = pool.start[slot]!, end = i + pool.count[slot]!; i < end; i++) {
      const t = pool.terms[i]!;
      const at = pool.pos[i]!;
      const moved = this.postings.removeAt(t, at);
      if (moved >= 0) pool.pos[pool.find(moved, t)] = at;
    }
    this.totalLen -= this.lens[slot]!;
    pool.release(slot);
    this.free.push(slot);
    this.slotOf.delete(key);
    if (this.slotOf.size === 0) {
      // Float sums drift; an empty index starts clean.
      this.totalLen = 0;
      this.slotCount = 0;
      this.free = [];
    }
    return true;
  }

  /** Document frequency of a term (tests, diagnostics). */
  df(termId: number): number {
    const tix = this.postings.tix(termId >>> 0);
    return tix === undefined ? 0 : this.postings.n[tix]!;
  }

  idf(termId: number): number {
    return this.idfOf(this.df(termId));
  }

  /** idf of a term held by `df` documents (the formula in the class comment). */
  private idfOf(df: number): number {
    const n = this.size;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /**
   * Top-k by BM25, best first, ties by key ascending. Documents sharing no query term are not
   * returned. Exact, with MaxScore-style pruning: terms are taken rarest first, accumulating
   * into a dense score array; once the k-th best partial score exceeds what the remaining
   * (common) terms could give a document at most, no unseen document can enter the top k, so
   * the remaining terms only add to documents already found (by lookup in each candidate's
   * sorted term list when that is cheaper than scanning the term's postings). Before each of
   * those terms, found documents whose partial score plus that most cannot reach the k-th best
   * partial score are dropped: scores only grow, so they cannot reach the final k-th either.
   * Without that, a term held by nearly every document (a word of a fixed template) costs a
   * scan of its whole postings for the many documents the rarer terms found (at 100k
   * memories: 3.5 ms of a bench query's 4 ms, against 0.4 ms for the others).
   */
  search(queryIds: ArrayLike<number>, k: number): VectorHit[] {
    k = Math.floor(k);
    const n = this.size;
    if (k <= 0 || n === 0 || queryIds.length === 0) return [];
    const avgdl = this.totalLen / n || 1;
    const { k1, b } = this;
    const cap = this.slotCount;
    if (this.acc.length < cap) {
      this.acc = new Float64Array(Math.max(cap, this.acc.length * 2));
      this.touched = new Uint32Array(this.acc.length);
    }
    const acc = this.acc;
    const touched = this.touched;
    const lens = this.lens;
    const keyOf = this.keyOf;
    // tf + k1·(1 − b + b·dl/avgdl) = tf + c0 + c1·dl
    const c0 = k1 * (1 - b);
    const c1 = (k1 * b) / avgdl;
    let nTouched = 0;
    const pp = this.postings;
    const terms: Array<{ t: number; tix: number; df: number; w: number; ub: number }> = [];
    const seen = new Set<number>();
    for (let q = 0; q < queryIds.length; q++) {
      const t = queryIds[q]! >>> 0;
      if (seen.has(t)) continue;
      seen.add(t);
      const tix = pp.tix(t);
      if (tix === undefined) continue;
      const df = pp.n[tix]!;
      const w = this.idfOf(df) * (k1 + 1);
      // tf/(tf + c0 + c1·dl) ≤ maxTf/(maxTf + c0) since dl ≥ 0 and the ratio grows with tf.
      const maxTf = pp.maxTf[tix]!;
      terms.push({ t, tix, df, w, ub: (w * maxTf) / (maxTf + c0) });
    }
    terms.sort((x, y) => x.df - y.df || x.t - y.t);
    let rest = terms.reduce((sum, x) => sum + x.ub, 0);
    let closed = false;
    const slots = pp.slots;
    const tfs = pp.tfs;
    for (const { t, tix, df, w, ub } of terms) {
      if (!closed && nTouched >= k && kthLargest(acc, touched, nTouched, k) > rest) closed = true;
      if (closed && nTouched > k) nTouched = this.prune(nTouched, k, rest);
      const from = pp.start[tix]!;
      if (!closed) {
        for (let i = from, end = from + df; i < end; i++) {
          const slot = slots[i]!;
          const tf = tfs[i]!;
          const s = (w * tf) / (tf + c0 + c1 * lens[slot]!);
          if (acc[slot] === 0) touched[nTouched++] = slot;
          acc[slot] = acc[slot]! + s;
        }
      } else if (nTouched * 8 < df) {
        const pool = this.pool;
        for (let i = 0; i < nTouched; i++) {
          const slot = touched[i]!;
          const at = pool.find(slot, t);
          if (at >= 0) {
            const tf = pool.tfs[at]!;
            acc[slot] = acc[slot]! + (w * tf) / (tf + c0 + c1 * lens[slot]!);
          }
        }
      } else {
        for (let i = from, end = from + df; i < end; i++) {
          const slot = slots[i]!;
          if (acc[slot] === 0) continue;
          const tf = tfs[i]!;
          acc[slot] = acc[slot]! + (w * tf) / (tf + c0 + c1 * lens[slot]!);
        }
      }
      rest -= ub;
    }
    return topHits(acc, touched, nTouched, keyOf, k);
  }

  /**
   * Keeps the touched slots whose partial score plus `rest` (the most the remaining terms can
   * add) reaches the current k-th best partial score, in their order; zeroes the others' scores
   * (topHits only resets what is still touched). The margin absorbs float rounding in `rest`,
   * so a document that could tie the k-th is kept. Returns the new count.
   */
  private prune(nTouched: number, k: number, rest: number): number {
    const acc = this.acc;
    const touched = this.touched;
    const floor = kthLargest(acc, touched, nTouched, k) - rest - PRUNE_MARGIN;
    let kept = 0;
    for (let i = 0; i < nTouched; i++) {
      const slot = touched[i]!;
      if (acc[slot]! >= floor) touched[kept++] = slot;
      else acc[slot] = 0;
    }
    return kept;
  }

  /**
   * Top-k by BM25 among the listed keys only, with the same scores and order as `search` (idf
   * and avgdl still come from the whole index, so a filter does not change what a term is
   * worth). Each listed document is scored from its own sorted term list, so the cost grows
   * with the number of keys, not with the postings: the path for small filtered sets.
   */
  searchAmong(queryIds: ArrayLike<number>, k: number, among: readonly number[]): VectorHit[] {
    k = Math.floor(k);
    const n = this.size;
    if (k <= 0 || n === 0 || queryIds.length === 0 || among.length === 0) return [];
    const avgdl = this.totalLen / n || 1;
    const { k1, b } = this;
    const terms: Array<{ t: number; w: number; df: number }> = [];
    for (const t of new Set(Array.from(queryIds, (id) => id >>> 0))) {
      const tix = this.postings.tix(t);
      if (tix === undefined) continue;
      const df = this.postings.n[tix]!;
      terms.push({ t, w: this.idfOf(df) * (k1 + 1), df });
    }
    if (terms.length === 0) return [];
    // The order `search` adds terms in, so both paths sum the same floats the same way.
    terms.sort((x, y) => x.df - y.df || x.t - y.t);
    const c0 = k1 * (1 - b);
    const c1 = (k1 * b) / avgdl;
    const hits: VectorHit[] = [];
    const seen = new Set<number>();
    for (const key of among) {
      const slot = this.slotOf.get(key);
      if (slot === undefined || seen.has(key)) continue;
      seen.add(key);
      let score = 0;
      for (const { t, w } of terms) {
        const at = this.pool.find(slot, t);
        if (at >= 0) {
          const tf = this.pool.tfs[at]!;
          score += (w * tf) / (tf + c0 + c1 * this.lens[slot]!);
        }
      }
      if (score > 0) hits.push({ key, similarity: score });
    }
    hits.sort((x, y) => y.similarity - x.similarity || x.key - y.key);
    return hits.length > k ? hits.slice(0, k) : hits;
  }

  /** Binary snapshot of every live document (src/index/sparse-snapshot.ts has the format). */
  serialize(): Uint8Array {
    const docs: SparseDocument[] = [];
    const pool = this.pool;
    const free = new Set(this.free);
    for (let slot = 0; slot < this.slotCount; slot++) {
      if (free.has(slot)) continue;
      const from = pool.start[slot]!;
      const to = from + pool.count[slot]!;
      docs.push({ key: this.keyOf[slot]!, terms: pool.terms.subarray(from, to), tfs: pool.tfs.subarray(from, to) });
    }
    return serializeSparse(docs);
  }

  static deserialize(data: Uint8Array, k1?: number, b?: number): SparseIndex {
    const index = new SparseIndex(k1, b);
    const columns = readSparse(data);
    if (isCanonical(columns)) {
      index.adopt(columns);
      return index;
    }
    for (const d of documentsOf(columns)) index.upsert(d.key, d.terms, d.tfs);
    index.pool.trim();
    index.postings.trim();
    return index;
  }

  /**
   * An empty index takes a snapshot's documents whole, slot i for document i: the index that
   * upserting them in order and trimming builds, without the per-document work (at 100k
   * memories, loading E6 took 2.6 s one document at a time).
   */
  private adopt({ keys, counts, ids, tfs }: SparseColumns): void {
    this.pool.adopt(ids, tfs, counts);
    this.postings.fill(ids, tfs, counts, this.pool.pos);
    this.lens = new Float32Array(Math.max(16, keys.length));
    this.keyOf = new Float64Array(this.lens.length);
    for (let slot = 0, e = 0; slot < keys.length; slot++) {
      let len = 0;
      for (const end = e + counts[slot]!; e < end; e++) len += tfs[e]!;
      this.lens[slot] = len;
      this.keyOf[slot] = keys[slot]!;
      this.slotOf.set(keys[slot]!, slot);
      this.totalLen += len;
    }
    this.slotCount = keys.length;
  }
}
