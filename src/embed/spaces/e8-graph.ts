import { createGraphEncoder } from '../encoders/graph.js';
import { defineSpace } from './define.js';
import { e1Semantic } from './e1-semantic.js';

export const e8Graph = defineSpace({
  id: 'E8',
  name: 'graph',
  purpose: 'connectivity: a node’s own E1 vector mixed with the edge-weighted mean of its neighbours’ (recomputed by the graph-embed job when its edges change)',
  index: 'dense',
  status: 'implemented',
  // Measured on LoCoMo dev (bench --parts locomo, E8_only and fused+E8@0.3): see README.
  weight: 0,
  // The own-vector half is this worker's E1; the graph-embed job writes the propagated vector.
  encoder: async (config) => createGraphEncoder(await e1Semantic.encoder!(config)),
});
