import { defineSpace } from './define.js';

// Planned: registered so its id, name and purpose are stable; it gets an encoder (and a weight
// measured on the bench) in the all-spaces issue.
export const e11Entity = defineSpace({
  id: 'E11',
  name: 'entity',
  purpose: 'factuality: entity and knowledge-graph embeddings',
  index: 'dense',
  status: 'planned',
});
