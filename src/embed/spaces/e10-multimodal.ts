import { defineSpace } from './define.js';

// Planned: registered so its id, name and purpose are stable; it gets an encoder (and a weight
// measured on the bench) in the all-spaces issue.
export const e10Multimodal = defineSpace({
  id: 'E10',
  name: 'multimodal',
  purpose: 'multimodality: text tower of a joint text-image model',
  index: 'dense',
  status: 'planned',
});
