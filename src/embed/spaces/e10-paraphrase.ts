import { createParaphraseEncoder } from '../encoders/terms.js';
import { defineSpace } from './define.js';

export const e10Paraphrase = defineSpace({
  id: 'E10',
  name: 'paraphrase',
  purpose: 'paraphrase: the order-free set of content stems (signed feature hashing), robust to rewording',
  index: 'dense',
  status: 'implemented',
  // Measured on LoCoMo dev (bench --parts locomo): see README.
  weight: 0,
  // On 20k bench memories (`node bench/hnsw-recall.mjs . 20000 300 E10`, against exact cosine)
  // 64 kept recall@10 at 0.841 (128: 0.845; ties among equal stem sets bound both) for half the
  // add time: at 100k memories an E10 add was the costliest of a store's (1.3 ms).
  hnswExpansionAdd: 64,
  encoder: () => createParaphraseEncoder(),
});
