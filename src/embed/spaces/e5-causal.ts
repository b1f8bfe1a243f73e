import { defineSpace } from './define.js';

// Planned: registered so its id, name and purpose are stable; it gets an encoder (and a weight
// measured on the bench) in the all-spaces issue.
export const e5Causal = defineSpace({
  id: 'E5',
  name: 'causal',
  purpose: 'causality: asymmetric cause and effect vectors',
  index: 'dense',
  status: 'planned',
});
