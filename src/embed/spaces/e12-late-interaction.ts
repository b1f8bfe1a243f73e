import { defineSpace } from './define.js';

// Planned: registered so its id, name and purpose are stable; it gets an encoder (and a weight
// measured on the bench) in the all-spaces issue.
export const e12LateInteraction = defineSpace({
  id: 'E12',
  name: 'late-interaction',
  purpose: 'precision: per-token vectors for MaxSim reranking (ColBERT)',
  index: 'multi',
  status: 'planned',
});
