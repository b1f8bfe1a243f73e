import { defineSpace } from './define.js';

// Planned: registered so its id, name and purpose are stable; it gets an encoder (and a weight
// measured on the bench) in the all-spaces issue.
export const e7Code = defineSpace({
  id: 'E7',
  name: 'code',
  purpose: 'correctness: embeddings of source code and identifiers',
  index: 'dense',
  status: 'planned',
});
