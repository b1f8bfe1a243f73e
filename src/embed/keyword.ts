import { fnv1a32 } from './hashing.js';
import type { SpaceEncoder } from './encoder.js';

/**
 * E13, the model-free keyword space: a text becomes the bag of its (lightly stemmed) terms, the
 * sparse vector that the BM25 inverted index (src/index/sparse.ts) ranks with. It travels the
 * same road as the dense spaces (embedding workers → `embeddings` table → feed → every
 * replica's index thread), so no front end ever asks Postgres for full text.
 *
 * Vector layout (`packTerms` / `unpackTerms`): one Float32Array of length 2·n whose buffer holds
 * n interleaved pairs, sorted by term id, ids unique:
 *
 *     word 2i   : uint32 term id (fnv1a32 of the stemmed term), read through a Uint32Array view
 *     word 2i+1 : float32 term frequency (a count, > 0)
 *
 * The id words are raw uint32 bits, so about 1 in 256 of them reads as a NaN float: code must
 * move these vectors only by whole-buffer copies (TypedArray set/slice of the same type,
 * structured clone, bytea), never element by element through a JS number. A text with no terms
 * gives an empty vector (length 0), which the index stores as a document with no postings.
 *
 * The encoder sees what the embed job embeds, `topic\ncontent` (services/embedding.ts), and
 * counts every term once: topic and content weigh the same, as in the BM25 baseline.
 */
export const KEYWORD_MODEL_ID = 'bm25-terms-v1';

/** Same list as the BM25 baseline (bench/quality/bm25.ts), so the comparison is like for like. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  'a an and are as at be been but by can could did do does for from had has have how i if in into is it its me my no not of on or our so than that the their them then there these they this to was we were what when where which who whom why will with would you your'.split(
    ' ',
  ),
);

const TERM = /[\p{L}\p{N}]+/gu;
const ASCII_WORD = /^[a-z]+$/;
const VOWEL = /[aeiouy]/;

function isConsonant(c: string | undefined): boolean {
  return c !== undefined && !'aeiou'.includes(c);
}

/**
 * A tiny, deterministic Porter-like step for English inflections, applied to ASCII words only:
 * plural s/ies/sses, then ing/ed (when what is left holds a vowel; a doubled final consonant
 * is undoubled), then a final consonant+y becomes i and a final e is dropped. So
 * invoices/invoiced/invoice → invoic, deploying/deployed/deploys → deploy,
 * retries/retry/retrying → retri, running/runs → run. No derivational suffixes.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 2 || !ASCII_WORD.test(w)) return w;
  // Plurals.
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies') && w.length > 4) w = w.slice(0, -3) + 'y';
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1);
  // Verb inflections.
  let base: string | null = null;
  if (w.endsWith('ing')) base = w.slice(0, -3);
  else if (w.endsWith('ed') && !w.endsWith('eed')) base = w.slice(0, -2);
  if (base !== null && base.length >= 2 && VOWEL.test(base)) {
    w = base;
    const last = w[w.length - 1]!;
    if (w.length >= 3 && last === w[w.length - 2] && isConsonant(last) && !'lsz'.includes(last)) w = w.slice(0, -1);
  }
  // y → i after a consonant (retry/retries meet), then drop a final e (invoice/invoiced meet).
  if (w.length > 2 && w.endsWith('y') && isConsonant(w[w.length - 2])) w = w.slice(0, -1) + 'i';
  if (w.length > 2 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

/** Lower-cased, NFKC, Unicode letter/digit runs, stop words dropped, stemmed. */
export function keywordTerms(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.normalize('NFKC').toLowerCase().match(TERM) ?? []) {
    if (STOP_WORDS.has(raw)) continue;
    out.push(stem(raw));
  }
  return out;
}

export function termId(term: string): number {
  return fnv1a32(term);
}

/** Term id → frequency. */
export function termCounts(text: string): Map<number, number> {
  const counts = new Map<number, number>();
  for (const t of keywordTerms(text)) {
    const id = termId(t);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

/** Packs (id, weight) pairs in the layout above (sorted by id; a repeated id keeps the last weight). */
export function packTerms(terms: ReadonlyMap<number, number> | Iterable<readonly [number, number]>): Float32Array {
  const m = terms instanceof Map ? (terms as ReadonlyMap<number, number>) : new Map(terms as Iterable<readonly [number, number]>);
  const ids = Uint32Array.from(m.keys()).sort();
  const buf = new ArrayBuffer(ids.length * 8);
  const u32 = new Uint32Array(buf);
  const f32 = new Float32Array(buf);
  for (let i = 0; i < ids.length; i++) {
    u32[2 * i] = ids[i]!;
    f32[2 * i + 1] = m.get(ids[i]!)!;
  }
  return f32;
}

export interface SparseTerms {
  ids: Uint32Array;
  weights: Float32Array;
}

/** Reads a packed vector (any offset of any buffer) into separate arrays. */
export function unpackTerms(v: Float32Array): SparseTerms {
  if (v.length % 2 !== 0) throw new RangeError(`a sparse keyword vector has an even length, got ${v.length}`);
  const n = v.length / 2;
  // Copy the bytes first so the views are aligned and independent of the caller's buffer.
  const copy = new Uint32Array(v.length);
  new Uint8Array(copy.buffer).set(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
  const asFloat = new Float32Array(copy.buffer);
  const ids = new Uint32Array(n);
  const weights = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    ids[i] = copy[2 * i]!;
    weights[i] = asFloat[2 * i + 1]!;
  }
  return { ids, weights };
}

export function keywordEmbed(text: string): Float32Array {
  return packTerms(termCounts(text));
}

export function createKeywordEncoder(): SpaceEncoder {
  return {
    // dim 0: variable length (2 words per distinct term).
    info: { space: 'E13', modelId: KEYWORD_MODEL_ID, dim: 0, provider: 'model-free' },
    encode: (texts) => texts.map((t) => keywordEmbed(t)),
  };
}
