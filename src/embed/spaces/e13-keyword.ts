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
  // On the generated labelled set (bench --parts quality, seed 42, model-free E1) weight 1 left
  // hybrid below plain BM25 at recall@5 (0.507 vs 0.514); 2 gives 0.519/0.630/0.737 vs
  // 0.514/0.597/0.732 at @5/10/25.
  weight: 2,
  encoder: () => createKeywordEncoder(),
});
