import { defineSpace } from './define.js';

// Planned: registered so its id, name and purpose are stable; it gets an encoder (and a weight
// measured on the bench) in the all-spaces issue.
export const e3TemporalPeriodic = defineSpace({
  id: 'E3',
  name: 'temporal-periodic',
  purpose: 'periodicity: Fourier phase features over hour, day, week, month, year',
  index: 'dense',
  status: 'planned',
});
