import { defineSpace } from './define.js';

// Planned: registered so its id, name and purpose are stable; it gets an encoder (and a weight
// measured on the bench) in the all-spaces issue.
export const e2TemporalRecent = defineSpace({
  id: 'E2',
  name: 'temporal-recent',
  purpose: 'freshness: multi-rate exponential decay of the age of the memory',
  index: 'dense',
  status: 'planned',
});
