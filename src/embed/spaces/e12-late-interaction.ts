import { createLateInteractionEncoder } from '../encoders/late-interaction.js';
import { defineSpace } from './define.js';

export const e12LateInteraction = defineSpace({
  id: 'E12',
  name: 'late-interaction',
  purpose: 'precision: per-token GloVe vectors, MaxSim rerank of the fused candidates (ColBERT-style)',
  index: 'multi',
  status: 'implemented',
  // A reranker, never a candidate generator (src/services/search.ts). Measured on LoCoMo dev
  // (bench --parts locomo, E12_only and fused+E12@0.3): see README.
  weight: 0,
  encoder: () => createLateInteractionEncoder(),
});
