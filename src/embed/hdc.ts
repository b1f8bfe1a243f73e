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

export function hdcEmbed(text: string): Float32Array {
  // Spaces at both ends give the first and last word boundary trigrams like inner words; the
  // minimum of three code points gives even an empty text one trigram and so a unit vector.
  const cps = Array.from(' ' + normalizeForHdc(text) + ' ', (ch) => ch.codePointAt(0)!);
  while (cps.length < 3) cps.push(0x20);

  // Repeated trigrams are common in natural text: bundle each distinct one once, times its count.
  const counts = new Map<string, number>();
  for (let t = 0; t + 2 < cps.length; t++) {
    const key = String.fromCodePoint(cps[t]!, cps[t + 1]!, cps[t + 2]!);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }

  const acc = new Int32Array(HDC_DIM);
  for (const [key, n] of counts) {
    const [c1, c2, c3] = Array.from(key, (ch) => ch.codePointAt(0)!);
    const a = charVector(c1!);
    const b = charVector(c2!);
    const c = charVector(c3!);
    for (let i = 0; i < HDC_DIM; i++) acc[i] = acc[i]! + n * a[i]! * b[i + 1]! * c[i + 2]!;
  }
  const out = new Float32Array(HDC_DIM);
  for (let i = 0; i < HDC_DIM; i++) out[i] = acc[i]!;
  return l2normalize(out);
}

export function createHdcEncoder(): SpaceEncoder {
  return {
    info: { space: 'E9', modelId: HDC_MODEL_ID, dim: HDC_DIM, provider: 'model-free' },
    encode: (texts) => texts.map((t) => hdcEmbed(t)),
  };
}
