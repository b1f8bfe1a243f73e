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
  // 24 dimensions: on 20k bench memories spread over two years (`node bench/hnsw-recall.mjs .
  // 20000 300 E3`, against exact cosine) 32 kept recall@10 at 0.977 (128: 0.977) for a quarter of
  // the add time (1.0 ms an add at 100k memories stored minutes apart).
  hnswExpansionAdd: 32,
  encoder: () => createPeriodicEncoder(),
});
