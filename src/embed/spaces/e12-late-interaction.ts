import { createLateInteractionEncoder } from '../encoders/late-interaction.js';
import { defineSpace } from './define.js';

export const e12LateInteraction = defineSpace({
  id: 'E12',
  name: 'late-interaction',
  purpose: 'precision: per-token GloVe vectors, MaxSim rerank of the fused candidates (ColBERT-style)',
  index: 'multi',
  status: 'implemented',
  // A reranker, never a candidate generator (src/services/search.ts). Measured on LoCoMo dev
  // (bench --parts locomo), R@5/10/25/50: alone (full scan) 55.2/62.6/70.7/76.5; default fusion
  // 65.8/75.3/84.2/90.1, +E12@0.3 66.0/76.2/84.8/90.6, +E6+E12@0.3 66.6/76.6/85.8/90.7; generated
  // set R@5/10/25 0.490/0.641/0.745 → +E12 0.561/0.700/0.766. It earned 0.3 at every k.
  // CALIBRATION-PENDING
  weight: 0.3,
  encoder: () => createLateInteractionEncoder(),
});
