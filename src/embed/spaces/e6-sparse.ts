import { defineSpace } from './define.js';

// Planned: registered so its id, name and purpose are stable; it gets an encoder (and a weight
// measured on the bench) in the all-spaces issue.
export const e6Sparse = defineSpace({
  id: 'E6',
  name: 'sparse',
  purpose: 'selectivity: sparse lexical expansion (SPLADE)',
  index: 'sparse',
  status: 'planned',
});
