import { createLateInteractionEncoder } from '../encoders/late-interaction.js';
import { defineSpace } from './define.js';

export const e12LateInteraction = defineSpace({
  id: 'E12',
  name: 'late-interaction',
  purpose: 'precision: per-token GloVe vectors, MaxSim rerank of the fused candidates (ColBERT-style)',
  index: 'multi',
  status: 'implemented',
  // A reranker, never a candidate generator (src/services/search.ts). Measured on LoCoMo dev
  // (bench --parts locomo), R@5/10/25/50: alone (full scan) 55.2/62.6/70.7/76.5. With E6 at the
  // same weight, in one run (bench/results/2026-11-27-calibration): E6=E12=0 65.2/75.4/84.1/89.9,
  // 0.15 65.9/76.0/84.8/90.4, 0.3 66.6/76.6/85.8/90.7, 0.5 67.4/76.9/86.2/91.2; generated set
  // R@5/10/25 0.490/0.641/0.745 at 0 → 0.650/0.708/0.795 at 0.5. 0.5 was the best tried, better
  // than 0 at every k on both sets. Its MaxSim reads as match strength on its own ramp
  // (fusion.ts MAXSIM_FLOOR).
  weight: 0.5,
  encoder: () => createLateInteractionEncoder(),
});
