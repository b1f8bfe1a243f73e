import { l2normalize, type SpaceEncoder } from '../encoder.js';
import { fmix32, fnv1a32 } from '../hashing.js';
import { keywordTerms, packTerms, STOP_WORDS, termId } from '../keyword.js';
import type { SpaceId } from '../types.js';

/**
 * E7 (code), E10 (paraphrase) and E11 (entity): model-free views of the words a text uses.
 * E7 and E11 are sparse term bags (packed like E13, ranked by BM25 in the same index kind), so
 * an identifier or a name matches exactly; E10 is dense (signed feature hashing of the set of
 * stems, no counts, no order), so a reworded sentence with the same content words is a near
 * neighbour even when BM25's length and frequency weighting would separate them.
 */

// Identifiers, dotted/slashed paths and qualified names: `parseHttpRequest`, `src/embed/pool.ts`, `a::b`.
const CODE_TOKEN = /[A-Za-z_$][\w$]*(?:(?:\.|\/|::|-)[A-Za-z_$\d][\w$]*)*/g;

/** camelCase, PascalCase, snake_case, kebab-case, digits: the words inside an identifier. */
export function identifierParts(token: string): string[] {
  return token
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z\d]+/)
    .filter((p) => p.length > 0)
    .map((p) => p.toLowerCase());
}

/**
 * E7 terms: a structured token (mixed case, `_`, `.`, `/`, `::`, `-`) counts whole (×2, so an
 * exact identifier or path outranks its parts) and by its parts; a plain word counts once
 * unless it is a stop word. Parts are not stemmed: `Handler` and `handle` are different names.
 */
export function codeTerms(text: string): Map<string, number> {
  const out = new Map<string, number>();
  const add = (t: string, w: number) => out.set(t, (out.get(t) ?? 0) + w);
  for (const token of text.normalize('NFKC').match(CODE_TOKEN) ?? []) {
    const parts = identifierParts(token);
    const structured = parts.length > 1 || /[_$.:/-]/.test(token);
    if (structured) {
      add(`id:${token.toLowerCase()}`, 2);
      for (const p of parts) if (!STOP_WORDS.has(p)) add(p, 1);
    } else if (!STOP_WORDS.has(parts[0] ?? '')) {
      add(parts[0]!, 1);
    }
  }
  return out;
}

const MONTHS = 'january february march april may june july august september october november december'.split(' ');

/**
 * E11 terms: what names a thing rather than describes it. Capitalised words and runs of them
 * ("New York" → `new york`, `new`, `york`), @handles, #tags, e-mail addresses, URLs, ISO dates,
 * month names, numbers (thousands separators dropped), and ids (tokens mixing letters and
 * digits, or 8+ hex digits). Everything else is ignored, so two memories meet in this space
 * only through the entities they share.
 */
export function entityTerms(text: string): Map<string, number> {
  const out = new Map<string, number>();
  const add = (t: string) => out.set(t, (out.get(t) ?? 0) + 1);
  const s = text.normalize('NFKC');
  for (const m of s.match(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g) ?? []) add(`mail:${m.toLowerCase()}`);
  for (const m of s.match(/https?:\/\/[^\s)>\]]+/g) ?? []) add(`url:${m.toLowerCase().replace(/[.,;]+$/, '')}`);
  for (const m of s.match(/(?<![\w@])[@#][A-Za-z_][\w-]*/g) ?? []) add(m.toLowerCase());
  for (const m of s.match(/\b\d{4}-\d{2}-\d{2}\b/g) ?? []) add(`date:${m}`);
  for (const m of s.match(/\b\d{1,3}(?:,\d{3})+(?:\.\d+)?\b|\b\d+(?:\.\d+)?\b/g) ?? []) add(`num:${m.replace(/,/g, '')}`);
  for (const m of s.match(/\b(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z\d]{3,}\b|\b[a-f\d]{8,}\b/gi) ?? []) add(`id:${m.toLowerCase()}`);
  // Runs of capitalised words; "I" and capitalised stop words ("The", "When") open no name.
  for (const run of s.match(/\b\p{Lu}[\p{L}\p{N}'’-]*(?:\s+\p{Lu}[\p{L}\p{N}'’-]*)*/gu) ?? []) {
    const names = run.split(/\s+/).filter((w) => w !== 'I' && !STOP_WORDS.has(w.toLowerCase()));
    if (names.length === 0) continue;
    if (names.length > 1) add(names.join(' ').toLowerCase());
    for (const n of names) add(n.toLowerCase().replace(/['’]s$/, ''));
  }
  for (const w of s.toLowerCase().match(/\p{L}+/gu) ?? []) if (MONTHS.includes(w)) add(`month:${w}`);
  return out;
}

function sparseEncoder(space: SpaceId, modelId: string, terms: (text: string) => Map<string, number>): SpaceEncoder {
  return {
    info: { space, modelId, dim: 0, provider: 'model-free' },
    encode: (texts) => texts.map((t) => packTerms(new Map([...terms(t)].map(([term, w]) => [termId(term), w])))),
  };
}

export const createCodeEncoder = () => sparseEncoder('E7', 'code-identifiers-v1', codeTerms);
export const createEntityEncoder = () => sparseEncoder('E11', 'entity-tokens-v1', entityTerms);

export const PARAPHRASE_DIM = 256;
const EMPTY = '\u0000empty';

/** E10: the set of content stems (ignoring order, counts and inflection), signed-hashed to 256 floats. */
export function paraphraseVector(text: string): Float32Array {
  const v = new Float32Array(PARAPHRASE_DIM);
  const set = new Set(keywordTerms(text));
  if (set.size === 0) set.add(EMPTY);
  for (const term of set) {
    const h = fnv1a32(term);
    v[h % PARAPHRASE_DIM] = v[h % PARAPHRASE_DIM]! + (fmix32(h) & 1 ? -1 : 1);
  }
  return l2normalize(v);
}

export function createParaphraseEncoder(): SpaceEncoder {
  return {
    info: { space: 'E10', modelId: `stem-set-v1-${PARAPHRASE_DIM}`, dim: PARAPHRASE_DIM, provider: 'model-free' },
    encode: (texts) => texts.map(paraphraseVector),
  };
}
