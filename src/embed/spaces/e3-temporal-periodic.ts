import { createPeriodicEncoder } from '../encoders/temporal.js';
import { defineSpace } from './define.js';

export const e3TemporalPeriodic = defineSpace({
  id: 'E3',
  name: 'temporal-periodic',
  purpose: 'periodicity: phase of the memory time within the day, week and year',
  index: 'dense',
  status: 'implemented',
  // A re-ranker for "what do I do on Monday mornings" style profiles; unweighted in default
  // fusion (LoCoMo dev, bench --parts locomo: E3_only is near chance).
  weight: 0,
  encoder: () => createPeriodicEncoder(),
});
