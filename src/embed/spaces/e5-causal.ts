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
  // Built on this worker's E1 encoder, so its halves live in E1's space.
  encoder: async (config) => createCausalEncoder(await e1Semantic.encoder!(config)),
});
