import { resized, TRIM_HEADROOM } from './doc-pool.js';

/**
 * The postings lists of the BM25 index (src/index/sparse.ts), packed: every term's (slot, tf)
 * pairs live in two flat arrays shared by all terms, found by the term's number (`tix`, dense,
 * reused once a term has no postings left) through its (start, n, cap). An object with two typed
 * arrays per term cost ~370 bytes of V8 heap even for a term held by one document (an id, a
 * number, a name: one per memory in a store of notes, ~170 MB over three spaces at 100k).
 *
 * A full list moves to the end with half again its room (the last list grows in place); the
 * room it left is garbage until garbage is a quarter of the arrays, when the next move compacts
 * every list (terms keep their tix, a list keeps room for at most 1.5× its length).
 */
export class PostingsPool {
  slots = new Uint32Array(1024);
  tfs = new Float32Array(1024);
  /** Per tix: where its list starts, its length, its room. */
  start = new Uint32Array(64);
  n = new Uint32Array(64);
  cap = new Uint32Array(64);
  /** Per tix: the largest tf ever posted (not lowered on removal): an upper bound for pruning. */
  maxTf = new Float32Array(64);
  private readonly tixOf = new Map<number, number>();
  private readonly freeTix: number[] = [];
  private terms = 0;
  private end = 0;
  private garbage = 0;

  /** The term's number, or undefined when no document holds it. */
  tix(term: number): number | undefined {
    return this.tixOf.get(term);
  }

  /** Appends (slot, tf) to the term's list (made when new); answers its position in the list. */
  add(term: number, slot: number, tf: number): number {
    let tix = this.tixOf.get(term);
    if (tix === undefined) {
      tix = this.freeTix.pop() ?? this.newTix();
      this.tixOf.set(term, tix);
      this.start[tix] = this.reserve(INITIAL_ROOM);
      this.n[tix] = 0;
      this.cap[tix] = INITIAL_ROOM;
      this.maxTf[tix] = 0;
    } else if (this.n[tix] === this.cap[tix]) {
      this.grow(tix, Math.max(this.cap[tix]! + INITIAL_ROOM, Math.ceil(this.cap[tix]! * LIST_GROWTH)));
    }
    const at = this.n[tix]!;
    this.slots[this.start[tix]! + at] = slot;
    this.tfs[this.start[tix]! + at] = tf;
    if (tf > this.maxTf[tix]!) this.maxTf[tix] = tf;
    this.n[tix] = at + 1;
    return at;
  }

  /**
   * An empty pool builds every list at once from documents in slot order (slot i: the next
   * `counts[i]` entries of `terms`/`tfs`, a snapshot's on load), each list in slot order with the
   * room trim() leaves: the same lists as adding them one by one, without growing any. Writes each
   * entry's position in its term's list to `pos`.
   */
  fill(terms: Uint32Array, tfs: Float32Array, counts: Uint32Array, pos: Uint32Array): void {
    const tixOfEntry = new Uint32Array(terms.length);
    for (let e = 0; e < terms.length; e++) {
      let tix = this.tixOf.get(terms[e]!);
      if (tix === undefined) {
        tix = this.newTix();
        this.tixOf.set(terms[e]!, tix);
        this.n[tix] = 0;
        this.maxTf[tix] = 0;
      }
      this.n[tix]!++;
      tixOfEntry[e] = tix;
    }
    let at = 0;
    for (let tix = 0; tix < this.terms; tix++) {
      const room = Math.max(INITIAL_ROOM, Math.ceil(this.n[tix]! * TRIM_HEADROOM));
      this.start[tix] = at;
      this.cap[tix] = room;
      this.n[tix] = 0;
      at += room;
    }
    this.end = at;
    this.garbage = 0;
    this.slots = new Uint32Array(Math.ceil(at * TRIM_HEADROOM));
    this.tfs = new Float32Array(this.slots.length);
    for (let slot = 0, e = 0; slot < counts.length; slot++) {
      for (const end = e + counts[slot]!; e < end; e++) {
        const tix = tixOfEntry[e]!;
        const i = this.n[tix]!;
        const tf = tfs[e]!;
        this.slots[this.start[tix]! + i] = slot;
        this.tfs[this.start[tix]! + i] = tf;
        if (tf > this.maxTf[tix]!) this.maxTf[tix] = tf;
        this.n[tix] = i + 1;
        pos[e] = i;
      }
    }
  }

  /**
   * Removes position `at` of the term's list by moving its last entry there; answers the slot of
   * the entry that moved (whose position is now `at`), or -1 when `at` was the last. A list left
   * empty is released with its term.
   */
  removeAt(term: number, at: number): number {
    const tix = this.tixOf.get(term)!;
    const base = this.start[tix]!;
    const last = this.n[tix]! - 1;
    let moved = -1;
    if (at !== last) {
      moved = this.slots[base + last]!;
      this.slots[base + at] = moved;
      this.tfs[base + at] = this.tfs[base + last]!;
    }
    this.n[tix] = last;
    if (last === 0) {
      this.garbage += this.cap[tix]!;
      this.cap[tix] = 0;
      this.tixOf.delete(term);
      this.freeTix.push(tix);
    }
    return moved;
  }

  private newTix(): number {
    const tix = this.terms++;
    if (tix >= this.start.length) {
      const size = this.start.length * 2;
      this.start = resized(this.start, size);
      this.n = resized(this.n, size);
      this.cap = resized(this.cap, size);
      this.maxTf = resized(this.maxTf, size);
    }
    return tix;
  }

  /** Gives the term `room` entries at the end, its list copied there. */
  private grow(tix: number, room: number): void {
    // The last list in the arrays grows where it is, leaving nothing behind.
    if (this.start[tix]! + this.cap[tix]! === this.end && this.start[tix]! + room <= this.slots.length) {
      this.end += room - this.cap[tix]!;
      this.cap[tix] = room;
      return;
    }
    const at = this.reserve(room);
    const from = this.start[tix]!;
    const n = this.n[tix]!;
    this.slots.copyWithin(at, from, from + n);
    this.tfs.copyWithin(at, from, from + n);
    this.garbage += this.cap[tix]!;
    this.start[tix] = at;
    this.cap[tix] = room;
  }

  /** `room` entries at the end (compacting or growing first when they do not fit): their offset. */
  private reserve(room: number): number {
    if (this.end + room > this.slots.length) {
      if (this.garbage > 0 && this.garbage * GARBAGE_SHARE >= this.end) this.compact();
      // By half again, not double: these arrays are most of the index's memory.
      if (this.end + room > this.slots.length) {
        const size = Math.max(this.end + room, Math.ceil(this.slots.length * 1.5));
        this.slots = resized(this.slots, size);
        this.tfs = resized(this.tfs, size);
      }
    }
    const at = this.end;
    this.end += room;
    return at;
  }

  /** Gives back the room beyond TRIM_HEADROOM, in the arrays and in each list (a loaded snapshot's lists are all there is until the next write). */
  trim(): void {
    this.compact((n) => Math.max(INITIAL_ROOM, Math.ceil(n * TRIM_HEADROOM)));
    this.slots = resized(this.slots, Math.ceil(this.end * TRIM_HEADROOM));
    this.tfs = resized(this.tfs, Math.ceil(this.end * TRIM_HEADROOM));
  }

  /**
   * Moves every list to the front, in tix order, each with room for 1.5× its length at most: a
   * list that once grew long and has since shrunk gives its room back.
   */
  private compact(roomFor: (n: number, cap: number) => number = (n, cap) => Math.min(cap, Math.max(INITIAL_ROOM, Math.ceil(n * LIST_GROWTH)))): void {
    const slots = new Uint32Array(this.slots.length);
    const tfs = new Float32Array(this.tfs.length);
    let at = 0;
    for (let tix = 0; tix < this.terms; tix++) {
      if (this.cap[tix] === 0) continue;
      const from = this.start[tix]!;
      const n = this.n[tix]!;
      const room = roomFor(n, this.cap[tix]!);
      slots.set(this.slots.subarray(from, from + n), at);
      tfs.set(this.tfs.subarray(from, from + n), at);
      this.start[tix] = at;
      this.cap[tix] = room;
      at += room;
    }
    this.slots = slots;
    this.tfs = tfs;
    this.end = at;
    this.garbage = 0;
  }
}

/** Room of a new list: most terms of a large store are held by one or two documents. */
const INITIAL_ROOM = 2;

/**
 * A full list gets half again its room (not double: the lists are most of the index's memory,
 * and a long list's old room is garbage until the next compaction), and compaction runs once
 * garbage is a quarter of the arrays' used length. Grown live to 500k memories, the E13 lists
 * used 4.2× the entries they held with double room and compaction at half.
 */
const LIST_GROWTH = 1.5;
const GARBAGE_SHARE = 4;
