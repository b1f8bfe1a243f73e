import { l2normalize, type SpaceEncoder } from './encoder.js';

/**
 * E9: MAP-style bipolar hyperdimensional vectors of character trigrams. A typo changes only the
 * trigrams around it, so misspelt or inflected text keeps most of its vector, which is the
 * robustness E9 contributes next to E1. Seed 001 used 10k bits; 1024 bipolar components keep
 * the vector small enough to index as floats while random trigram vectors stay near-orthogonal
 * (cosine spread about 1/sqrt(1024) = 0.03).
 */
export const HDC_DIM = 1024;
export const HDC_MODEL_ID = `hdc-trigram-v1-${HDC_DIM}`;

// Changing the seed changes every vector: it is part of the model id's meaning.
const SEED = 0x9e0e_0009;

/**
 * Per code point: the ±1 vector v preceded by its last two components, so that
 * ext[i] = v[(i-2) mod D], ext[i+1] = v[(i-1) mod D], ext[i+2] = v[i]. The trigram product
 * permute²(a) ⊙ permute(b) ⊙ c is then a straight loop with no modulo.
 */
const charCache = new Map<number, Int8Array>();

function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

export function charVector(codePoint: number): Int8Array {
  let ext = charCache.get(codePoint);
  if (ext) return ext;
  const next = splitmix32(Math.imul(codePoint + 1, 0x27d4eb2d) ^ SEED);
  const v = new Int8Array(HDC_DIM);
  for (let i = 0; i < HDC_DIM; i += 32) {
    const bits = next();
    for (let b = 0; b < 32; b++) v[i + b] = (bits >>> b) & 1 ? 1 : -1;
  }
  ext = new Int8Array(HDC_DIM + 2);
  ext[0] = v[HDC_DIM - 2]!;
  ext[1] = v[HDC_DIM - 1]!;
  ext.set(v, 2);
  charCache.set(codePoint, ext);
  return ext;
}

export function normalizeForHdc(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim();
}

/** 32 components a word: a component's sign bit is 1 where it is −1. */
const WORDS = HDC_DIM / 32;

/**
 * Per code point, the sign bits of its vector v as the trigram product reads it: `at[0]` holds
 * v[(i-2) mod D] at bit i, `at[1]` v[(i-1) mod D], `at[2]` v[i] (the layout charVector's `ext`
 * spells out with bytes). A product of ±1 components is the XOR of their sign bits.
 */
const bitsCache = new Map<number, readonly [Uint32Array, Uint32Array, Uint32Array]>();

function charBits(codePoint: number): readonly [Uint32Array, Uint32Array, Uint32Array] {
  let bits = bitsCache.get(codePoint);
  if (bits) return bits;
  const ext = charVector(codePoint);
  bits = [new Uint32Array(WORDS), new Uint32Array(WORDS), new Uint32Array(WORDS)];
  for (const [shift, words] of bits.entries()) {
    for (let i = 0; i < HDC_DIM; i++) if (ext[i + shift]! < 0) words[i >>> 5]! |= 1 << (i & 31);
  }
  bitsCache.set(codePoint, bits);
  return bits;
}

// Three code points below 2^17 (all of the BMP and the emoji planes) fit one exact double key.
const KEY_BASE = 0x20000;

/** Distinct trigrams of `cps` with their counts: a number key when it fits, else a string. */
function trigramCounts(cps: readonly number[]): Map<number | string, number> {
  const counts = new Map<number | string, number>();
  for (let t = 0; t + 2 < cps.length; t++) {
    const [a, b, c] = [cps[t]!, cps[t + 1]!, cps[t + 2]!];
    const key = a < KEY_BASE && b < KEY_BASE && c < KEY_BASE ? (a * KEY_BASE + b) * KEY_BASE + c : String.fromCodePoint(a, b, c);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

function trigramOf(key: number | string): [number, number, number] {
  if (typeof key === 'string') {
    const [a, b, c] = Array.from(key, (ch) => ch.codePointAt(0)!);
    return [a!, b!, c!];
  }
  const c = key % KEY_BASE;
  const ab = (key - c) / KEY_BASE;
  const b = ab % KEY_BASE;
  return [(ab - b) / KEY_BASE, b, c];
}

export function hdcEmbed(text: string): Float32Array {
  // Spaces at both ends give the first and last word boundary trigrams like inner words; the
  // minimum of three code points gives even an empty text one trigram and so a unit vector.
  const cps = Array.from(' ' + normalizeForHdc(text) + ' ', (ch) => ch.codePointAt(0)!);
  while (cps.length < 3) cps.push(0x20);

  // Each component bundles ±n per distinct trigram: total − 2 × (weight of the trigrams whose
  // product is −1 there). That weight is counted bit-sliced, 32 components an operation: plane
  // k holds bit k of every component's count, and adding a word ripples carries up the planes.
  // Integer sums, so the vector is exactly the one the per-component loop gave.
  const counts = trigramCounts(cps);
  const total = cps.length - 2;
  const planes = 32 - Math.clz32(total);
  const count = new Uint32Array(planes * WORDS);
  for (const [key, n] of counts) {
    const [c1, c2, c3] = trigramOf(key);
    const a = charBits(c1)[0];
    const b = charBits(c2)[1];
    const c = charBits(c3)[2];
    for (let w = 0; w < WORDS; w++) {
      const minus = a[w]! ^ b[w]! ^ c[w]!;
      // n × minus: add the word at each plane where n has a bit.
      for (let k = 0, m = n; m > 0; k++, m >>>= 1) {
        if ((m & 1) === 0) continue;
        let carry = minus;
        for (let p = k; carry !== 0; p++) {
          const at = p * WORDS + w;
          const next = count[at]! & carry;
          count[at] = count[at]! ^ carry;
          carry = next;
        }
      }
    }
  }
  const out = new Float32Array(HDC_DIM);
  for (let i = 0; i < HDC_DIM; i++) {
    const w = i >>> 5;
    const bit = i & 31;
    let minus = 0;
    for (let p = 0; p < planes; p++) minus |= ((count[p * WORDS + w]! >>> bit) & 1) << p;
    out[i] = total - 2 * minus;
  }
  return l2normalize(out);
}

export function createHdcEncoder(): SpaceEncoder {
  return {
    info: { space: 'E9', modelId: HDC_MODEL_ID, dim: HDC_DIM, provider: 'model-free' },
    encode: (texts) => texts.map((t) => hdcEmbed(t)),
  };
}
