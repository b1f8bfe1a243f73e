import { l2normalize, type SpaceEncoder } from './encoder.js';

/**
 * The model-free E1 encoder: feature hashing of word unigrams, word bigrams and character
 * 3/4/5-grams. It needs no download, so a fresh install can store and search at once; it only
 * captures lexical overlap, which is why `context-graph models pull` exists. Vectors of this
 * encoder carry their own model id and are never compared with ONNX vectors.
 */
export const HASH_DIM = 384;
export const HASH_MODEL_ID = `hash-ngram-v1-${HASH_DIM}`;

// Character grams vastly outnumber words (a 6-letter word gives 15 of them); these weights keep
// whole words dominant so that lexical matches, not shared suffixes like "ing", drive the cosine.
const WEIGHT_UNIGRAM = 1;
const WEIGHT_BIGRAM = 0.6;
const WEIGHT_CHARGRAM = 0.2;

const KIND_UNIGRAM = 'w\u0001';
const KIND_BIGRAM = 'b\u0001';
const KIND_CHARGRAM = 'c\u0001';
// Gives an empty or symbol-only text a unit vector: a zero vector has no cosine.
const EMPTY_FEATURE = 'e\u0001';

const WORD = /[\p{L}\p{N}_]+/gu;

/**
 * FNV-1a, 32 bit. Code units below 256 are one byte (so ASCII matches the published test
 * vectors); wider ones feed both bytes, so non-Latin text spreads over the whole range too.
 */
export function fnv1a32(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h ^= c & 0xff;
    h = Math.imul(h, 0x01000193);
    if (c > 0xff) {
      h ^= c >>> 8;
      h = Math.imul(h, 0x01000193);
    }
  }
  return h >>> 0;
}

/** murmur3's finaliser: FNV's low bits are weak, and the sign must not correlate with the slot. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export function words(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().match(WORD) ?? [];
}

/** Raw term frequencies of every feature, keyed by kind prefix + feature text. */
export function hashFeatures(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  const ws = words(text);
  for (let i = 0; i < ws.length; i++) {
    const w = ws[i]!;
    add(KIND_UNIGRAM + w);
    if (i > 0) add(KIND_BIGRAM + ws[i - 1]! + ' ' + w);
    // Boundary markers make prefixes and suffixes distinct from word-internal grams.
    const marked = '<' + w + '>';
    for (let n = 3; n <= 5; n++) {
      for (let j = 0; j + n <= marked.length; j++) add(KIND_CHARGRAM + marked.slice(j, j + n));
    }
  }
  if (counts.size === 0) add(EMPTY_FEATURE);
  return counts;
}

function weightOf(key: string): number {
  switch (key.charCodeAt(0)) {
    case 0x77 /* w */:
      return WEIGHT_UNIGRAM;
    case 0x62 /* b */:
      return WEIGHT_BIGRAM;
    case 0x63 /* c */:
      return WEIGHT_CHARGRAM;
    default:
      return 1;
  }
}

export function hashEmbed(text: string, dim: number = HASH_DIM): Float32Array {
  const out = new Float32Array(dim);
  for (const [key, tf] of hashFeatures(text)) {
    const h = fnv1a32(key);
    // Signed hashing: collisions cancel in expectation instead of inflating every cosine.
    const sign = fmix32(h) & 1 ? -1 : 1;
    const slot = h % dim;
    out[slot] = out[slot]! + sign * weightOf(key) * (1 + Math.log(tf));
  }
  return l2normalize(out);
}

export function createHashingEncoder(): SpaceEncoder {
  return {
    info: { space: 'E1', modelId: HASH_MODEL_ID, dim: HASH_DIM, provider: 'model-free' },
    encode: (texts) => texts.map((t) => hashEmbed(t)),
  };
}
