import { createExpansionEncoder } from '../encoders/expansion.js';
import { defineSpace } from './define.js';

export const e6Sparse = defineSpace({
  id: 'E6',
  name: 'sparse',
  purpose: 'selectivity: sparse lexical expansion (SPLADE-like): a memory’s terms plus their nearest GloVe neighbours at a lower weight, BM25-ranked',
  index: 'sparse',
  status: 'implemented',
  // Measured on LoCoMo dev (bench --parts locomo) and the generated set (--parts quality),
  // R@5/10/25/50: alone 54.6/63.1/73.1/78.8 (E13 54.3/63.3/72.0/76.9). With E12 at the same
  // weight, in one run (bench/results/2026-11-27-calibration): E6=E12=0 65.2/75.4/84.1/89.9,
  // 0.15 65.9/76.0/84.8/90.4, 0.3 66.6/76.6/85.8/90.7, 0.5 67.4/76.9/86.2/91.2 (E6 0.3 + E12 0.5
  // 67.1/76.8/86.1/91.0, E6 0.5 + E12 0.3 66.6/76.5/85.9/90.8); generated set R@5/10/25
  // 0.490/0.641/0.745 at 0 → 0.650/0.708/0.795 at 0.5. 0.5 was the best tried, better than 0 at
  // every k on both sets. Its score is calibrated against its own BM25 yardstick (fusion.ts).
  weight: 0.5,
  encoder: () => createExpansionEncoder(),
});
