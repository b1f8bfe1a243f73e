import { createExpansionEncoder } from '../encoders/expansion.js';
import { defineSpace } from './define.js';

export const e6Sparse = defineSpace({
  id: 'E6',
  name: 'sparse',
  purpose: 'selectivity: sparse lexical expansion (SPLADE-like): a memory’s terms plus their nearest GloVe neighbours at a lower weight, BM25-ranked',
  index: 'sparse',
  status: 'implemented',
  // Measured on LoCoMo dev (bench --parts locomo) and the generated set (--parts quality),
  // R@5/10/25/50: alone 54.6/63.1/73.1/78.8 (E13 54.3/63.3/72.0/76.9); default fusion
  // 65.8/75.3/84.2/90.1, +E6@0.3 66.3/75.5/84.9/90.5, +E6+E12@0.3 66.6/76.6/85.8/90.7; generated
  // set R@5/10/25 0.490/0.641/0.745 → +E6 0.593/0.687/0.761. It earned 0.3 at every k.
  // CALIBRATION-PENDING
  weight: 0.3,
  encoder: () => createExpansionEncoder(),
});
