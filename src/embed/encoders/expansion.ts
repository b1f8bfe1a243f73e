import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../paths.js';
import { bundledE1ModelDir } from '../bundled.js';
import type { SpaceEncoder } from '../encoder.js';
import { packTerms, stem, STOP_WORDS, termId } from '../keyword.js';

/**
 * E6, sparse expansion (SPLADE-like, model-free at run time): a stored memory's terms are E13's
 * (stemmed, stop words out, one per occurrence) plus, for each word among the 30,000 most
 * frequent GloVe words, its nearest GloVe neighbours at weight EXPANSION_WEIGHT × cosine (below
 * any original term's 1), so "automobile" also posts a fractional "car". A query is not expanded
 * (the sparse index ignores query weights, so expanded query terms would count fully): a query
 * word meets a memory through the memory's expansions. Ranked by BM25 in the sparse index kind.
 *
 * The neighbours come from assets/e6-neighbours (scripts/build-glove-neighbours.mjs: exact
 * cosine over E1's int8 GloVe rows, 900 kB), so expanding a word is one table read: the write
 * path pays microseconds per memory, never a nearest-neighbour search.
 */
// Recipe picked on LoCoMo dev, E6 alone in one BM25 index per conversation (a one-off script
// over SparseIndex; R@5/10/25/50; E13-style BM25 without expansion
// 55.2/63.4/71.2/76.4): 5 neighbours ≥ 0.7 at 0.5 × cosine 55.8/64.4/73.0/78.7; 10 ≥ 0.6 at 0.5
// 55.1/63.0/73.2/79.2 (worse at R@5/10); 3 ≥ 0.7 at 0.3 56.1/64.3/72.4/78.7.
export const EXPANSION_WEIGHT = 0.5;
/** Neighbours below this cosine are not added: GloVe's 10th neighbour of a rare word is often noise. */
export const MIN_NEIGHBOUR_COSINE = 0.7;
/** Neighbours used per word, best first, of the table's k. */
export const NEIGHBOURS_USED = 5;

const TERM = /[\p{L}\p{N}]+/gu;

export interface NeighbourTable {
  words: number;
  k: number;
  ids: Uint16Array;
  sims: Uint8Array;
  vocabulary: readonly string[];
  index: ReadonlyMap<string, number>;
}

export function neighboursDir(): string {
  return join(packageRoot(), 'assets', 'e6-neighbours');
}

let loaded: NeighbourTable | null | undefined;

/** The bundled neighbour table (once per thread), or null in a trimmed install without it. */
export function neighbourTable(): NeighbourTable | null {
  if (loaded !== undefined) return loaded;
  const dir = neighboursDir();
  if (!existsSync(join(dir, 'neighbours.bin')) || !existsSync(join(bundledE1ModelDir(), 'vocab.txt'))) return (loaded = null);
  const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { words: number; k: number; files: Record<string, string> };
  const bin = readFileSync(join(dir, 'neighbours.bin'));
  if (createHash('sha256').update(bin).digest('hex') !== config.files['neighbours.bin']) {
    throw new Error(`${dir}/neighbours.bin does not match the sha256 in config.json: rebuild with scripts/build-glove-neighbours.mjs`);
  }
  const n = config.words * config.k;
  const copy = new Uint8Array(bin.length);
  copy.set(bin);
  const vocabulary = readFileSync(join(bundledE1ModelDir(), 'vocab.txt'), 'utf8').split('\n', config.words);
  loaded = {
    words: config.words,
    k: config.k,
    ids: new Uint16Array(copy.buffer, 0, n),
    sims: new Uint8Array(copy.buffer, 2 * n, n),
    vocabulary,
    index: new Map(vocabulary.map((w, i) => [w, i])),
  };
  return loaded;
}

/** A text's E6 terms: its own (weight 1 each) and, when `expand`, its words' GloVe neighbours. */
export function expansionTerms(text: string, table: NeighbourTable | null, expand: boolean): Map<string, number> {
  const out = new Map<string, number>();
  const words = new Set<string>();
  for (const raw of text.normalize('NFKC').toLowerCase().match(TERM) ?? []) {
    if (STOP_WORDS.has(raw)) continue;
    const term = stem(raw);
    out.set(term, (out.get(term) ?? 0) + 1);
    words.add(raw);
  }
  if (!expand || !table) return out;
  const own = new Set(out.keys());
  for (const word of words) {
    const row = table.index.get(word);
    if (row === undefined) continue;
    for (let j = row * table.k; j < row * table.k + Math.min(NEIGHBOURS_USED, table.k); j++) {
      const sim = table.sims[j]! / 255;
      if (sim < MIN_NEIGHBOUR_COSINE) break; // best first
      const neighbour = table.vocabulary[table.ids[j]!]!;
      if (STOP_WORDS.has(neighbour)) continue;
      const term = stem(neighbour);
      if (own.has(term)) continue;
      const w = EXPANSION_WEIGHT * sim;
      if (w > (out.get(term) ?? 0)) out.set(term, w);
    }
  }
  return out;
}

export function createExpansionEncoder(): SpaceEncoder {
  const table = neighbourTable();
  const modelId = table ? `glove-expand-${table.words / 1000}k-n${Math.min(NEIGHBOURS_USED, table.k)}-c${MIN_NEIGHBOUR_COSINE}-w${EXPANSION_WEIGHT}-v1` : 'glove-expand-none-v1';
  return {
    info: { space: 'E6', modelId, dim: 0, provider: 'model-free' },
    // Stored memories arrive with items (their time and position); a query has none.
    encode: (texts, items) => texts.map((t) => packTerms(new Map([...expansionTerms(t, table, items !== undefined)].map(([term, w]) => [termId(term), w])))),
  };
}
