import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundledE1ModelDir } from '../bundled.js';
import type { SpaceEncoder } from '../encoder.js';
import { packTerms } from '../keyword.js';
import { WordVocabulary } from '../word-tokenizer.js';

/**
 * E12, late interaction (ColBERT-style MaxSim) on the static GloVe table. A text's "vector" is
 * its distinct known words as rows of the bundled E1 table, each with its SIF weight, packed like
 * a sparse term vector (`packTerms`: uint32 row, float32 weight). The token vectors themselves
 * are not stored: they are the table's rows, which the index thread reads from the same model
 * file (src/embed/glove-table.ts), so a memory costs 8 bytes per distinct word instead of
 * 100 floats per token, and a table change is a model-id change.
 *
 * MaxSim (src/index/kinds/multi.ts): score(q, d) = Σ_t w_t · max_{u ∈ d} cos(t, u) / Σ_t w_t
 * over the query's words t. Search uses it to rerank fused candidates (src/services/search.ts),
 * never to generate them.
 */
export const LATE_INTERACTION_PREFIX = 'maxsim-glove-rows-v1';
/** Distinct words kept per text: MaxSim over the first 256 covers a memory's topic. */
export const MAX_TOKENS = 256;

// SIF a / (a + p(w)) with the Zipf p of the E1 recipe (assets/e1-glove/README.md), on the row's
// order: frequent words ("the", "and") weigh ~0.01, content words ~1.
const SIF_A = 1e-3;
const ZIPF_H = Math.log(341_479) + 0.577;
export function sifWeight(row: number): number {
  return SIF_A / (SIF_A + 1 / ((row + 1) * ZIPF_H));
}

/** Distinct known words of `text` as (row, SIF weight), packed. */
export function tokenRows(vocabulary: WordVocabulary, text: string): Float32Array {
  const rows = new Map<number, number>();
  for (const id of vocabulary.ids(text)) {
    if (rows.size >= MAX_TOKENS) break;
    rows.set(id, sifWeight(id));
  }
  return packTerms(rows);
}

export function createLateInteractionEncoder(modelDir: string = bundledE1ModelDir()): SpaceEncoder {
  const words = readFileSync(join(modelDir, 'vocab.txt'), 'utf8').split('\n');
  if (words[words.length - 1] === '') words.pop();
  const vocabulary = new WordVocabulary(words);
  const { model_id: e1 } = JSON.parse(readFileSync(join(modelDir, 'config.json'), 'utf8')) as { model_id: string };
  return {
    info: { space: 'E12', modelId: `${LATE_INTERACTION_PREFIX}+${e1}`, dim: 0, provider: 'glove-static' },
    encode: (texts) => texts.map((t) => tokenRows(vocabulary, t)),
  };
}
