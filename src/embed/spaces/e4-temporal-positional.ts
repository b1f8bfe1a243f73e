import { defineSpace } from './define.js';

// Planned: registered so its id, name and purpose are stable; it gets an encoder (and a weight
// measured on the bench) in the all-spaces issue.
export const e4TemporalPositional = defineSpace({
  id: 'E4',
  name: 'temporal-positional',
  purpose: 'ordering: sinusoidal position encoding of the timestamp',
  index: 'dense',
  status: 'planned',
});
