import { defineSpace } from './define.js';

// Planned: registered so its id, name and purpose are stable; it gets an encoder (and a weight
// measured on the bench) in the all-spaces issue.
export const e8Graph = defineSpace({
  id: 'E8',
  name: 'graph',
  purpose: 'connectivity: relational source/target vectors (the "emotional" slot of era A)',
  index: 'dense',
  status: 'planned',
});
