import { createKeywordEncoder } from '../keyword.js';
import { defineSpace } from './define.js';

export const e13Keyword = defineSpace({
  id: 'E13',
  name: 'keyword',
  purpose: 'keyword precision: sparse term frequencies ranked by BM25 in an inverted index (the lexical signal)',
  index: 'sparse',
  status: 'implemented',
  // Hits of this space share a term with the query: search counts them as matches.
  signal: 'lexical',
  // Equal to E1 under the weighted score sum: α = 0.5 between BM25 and GloVe E1 measured best
  // on LoCoMo dev (bench --parts locomo; README Performance).
  weight: 1,
  encoder: () => createKeywordEncoder(),
});
