import { createHdcEncoder } from '../hdc.js';
import { defineSpace } from './define.js';

export const e9Hdc = defineSpace({
  id: 'E9',
  name: 'hdc',
  purpose: 'robustness: character-trigram hyperdimensional vectors that tolerate typos',
  index: 'dense',
  status: 'implemented',
  // Off until it earns a place: on LoCoMo dev (bench --parts locomo) its trigram neighbours
  // only added noise to BM25 + GloVe E1. Still embedded and indexed, so a weight is all it takes.
  weight: 0,
  // Its 1024-d adds were the largest part of a bulk import's index work. On 10k bench memories
  // (E9 of the corpus, 300 queries, against exact cosine) 64 kept recall@10 at 0.999 (128: 1.000)
  // at about half the add time; i8 storage would have cost as much time for 0.949.
  hnswExpansionAdd: 64,
  encoder: () => createHdcEncoder(),
});
