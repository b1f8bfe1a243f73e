import { createCausalEncoder } from '../encoders/causal.js';
import { defineSpace } from './define.js';
import { e1Semantic } from './e1-semantic.js';

export const e5Causal = defineSpace({
  id: 'E5',
  name: 'causal',
  purpose: 'causality: asymmetric cause and effect halves (E1 vectors of the clauses around a causal marker)',
  index: 'dense',
  status: 'implemented',
  // Measured on LoCoMo dev (bench --parts locomo, E5_only and E5 in fusion): see README.
  weight: 0,
  // On 20k bench memories (`node bench/hnsw-recall.mjs . 20000 300 E5`, against exact cosine) 64
  // kept recall@10 at 0.988 (128: 0.989) for half the add time.
  hnswExpansionAdd: 64,
  // Built on this worker's E1 encoder, so its halves live in E1's space.
  encoder: async (config) => createCausalEncoder(await e1Semantic.encoder!(config)),
});
