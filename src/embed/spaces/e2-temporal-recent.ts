import { createRecencyEncoder } from '../encoders/temporal.js';
import { defineSpace } from './define.js';

export const e2TemporalRecent = defineSpace({
  id: 'E2',
  name: 'temporal-recent',
  purpose: 'freshness: a multi-scale time kernel of the memory time (nearest to now = most recent)',
  index: 'dense',
  status: 'implemented',
  // A filter/re-ranker for temporal questions (profiles, search_teleological), not a free-text
  // matcher: a query's text says nothing about its time, so on LoCoMo dev it ranks by recency
  // alone (bench --parts locomo, E2_only) and fused it only adds noise.
  weight: 0,
  // On 20k bench memories spread over two years (`node bench/hnsw-recall.mjs . 20000 300 E2`,
  // against exact cosine) 64 kept recall@10 at 0.983 (128: 0.984) for half the add time.
  hnswExpansionAdd: 64,
  encoder: () => createRecencyEncoder(),
});
