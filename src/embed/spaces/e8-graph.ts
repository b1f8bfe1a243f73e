import { createGraphEncoder } from '../encoders/graph.js';
import { defineSpace } from './define.js';
import { e1Semantic } from './e1-semantic.js';

export const e8Graph = defineSpace({
  id: 'E8',
  name: 'graph',
  purpose: 'connectivity: a node’s own E1 vector mixed with the edge-weighted mean of its neighbours’ (recomputed by the graph-embed job when its edges change)',
  index: 'dense',
  status: 'implemented',
  // Measured on LoCoMo dev (bench --parts locomo, with the link job's edges), R@5/10/25/50:
  // alone 29.1/39.8/53.9/65.8 (E1 31.1/41.3/55.2/66.6); default 65.8/75.3/84.2/90.1, +E8@0.3
  // 64.4/73.7/83.3/89.0: worse at every k, so 0. (Generated set, no edges: E8 = E1.)
  weight: 0,
  // The own-vector half is this worker's E1; the graph-embed job writes the propagated vector.
  encoder: async (config) => createGraphEncoder(await e1Semantic.encoder!(config)),
});
