import type { VectorHit } from './vector-index.js';

/**
 * Selection helpers of the BM25 search loop (src/index/sparse.ts): they run over its dense
 * score array and touched-slot list without allocating per document.
 */

/**
 * The k best (score, key) pairs over the touched slots, best first, ties by key ascending, by a
 * bounded min-heap whose root is the worst kept hit. Resets acc[slot] to 0 for the next search.
 */
export function topHits(acc: Float64Array, touched: Uint32Array, nTouched: number, keyOf: Float64Array, k: number): VectorHit[] {
  const heapScore = new Float64Array(Math.min(k, nTouched));
  const heapKey = new Float64Array(heapScore.length);
  let size = 0;
  const worse = (sa: number, ka: number, sb: number, kb: number) => sa < sb || (sa === sb && ka > kb);
  for (let i = 0; i < nTouched; i++) {
    const slot = touched[i]!;
    const score = acc[slot]!;
    acc[slot] = 0;
    const key = keyOf[slot]!;
    if (size < heapScore.length) {
      let j = size++;
      while (j > 0) {
        const parent = (j - 1) >> 1;
        if (!worse(score, key, heapScore[parent]!, heapKey[parent]!)) break;
        heapScore[j] = heapScore[parent]!;
        heapKey[j] = heapKey[parent]!;
        j = parent;
      }
      heapScore[j] = score;
      heapKey[j] = key;
    } else if (worse(heapScore[0]!, heapKey[0]!, score, key)) {
      let j = 0;
      for (;;) {
        const l = 2 * j + 1;
        if (l >= size) break;
        const r = l + 1;
        const c = r < size && worse(heapScore[r]!, heapKey[r]!, heapScore[l]!, heapKey[l]!) ? r : l;
        if (!worse(heapScore[c]!, heapKey[c]!, score, key)) break;
        heapScore[j] = heapScore[c]!;
        heapKey[j] = heapKey[c]!;
        j = c;
      }
      heapScore[j] = score;
      heapKey[j] = key;
    }
  }
  const hits: VectorHit[] = [];
  for (let i = 0; i < size; i++) hits.push({ key: heapKey[i]!, similarity: heapScore[i]! });
  hits.sort((x, y) => y.similarity - x.similarity || x.key - y.key);
  return hits;
}

/** The k-th largest of acc over the touched slots (k ≤ nTouched), by a size-k min-heap. */
export function kthLargest(acc: Float64Array, touched: Uint32Array, nTouched: number, k: number): number {
  const heap = new Float64Array(k);
  let size = 0;
  for (let i = 0; i < nTouched; i++) {
    const v = acc[touched[i]!]!;
    if (size < k) {
      let j = size++;
      while (j > 0) {
        const parent = (j - 1) >> 1;
        if (heap[parent]! <= v) break;
        heap[j] = heap[parent]!;
        j = parent;
      }
      heap[j] = v;
    } else if (v > heap[0]!) {
      let j = 0;
      for (;;) {
        const l = 2 * j + 1;
        if (l >= size) break;
        const r = l + 1;
        const c = r < size && heap[r]! < heap[l]! ? r : l;
        if (heap[c]! >= v) break;
        heap[j] = heap[c]!;
        j = c;
      }
      heap[j] = v;
    }
  }
  return heap[0]!;
}
