import { createExpansionEncoder } from '../encoders/expansion.js';
import { defineSpace } from './define.js';

export const e6Sparse = defineSpace({
  id: 'E6',
  name: 'sparse',
  purpose: 'selectivity: sparse lexical expansion (SPLADE-like): a memory’s terms plus their nearest GloVe neighbours at a lower weight, BM25-ranked',
  index: 'sparse',
  status: 'implemented',
  // Measured on LoCoMo dev (bench --parts locomo, E6_only and fused+E6@0.3): see README.
  weight: 0,
  encoder: () => createExpansionEncoder(),
});
