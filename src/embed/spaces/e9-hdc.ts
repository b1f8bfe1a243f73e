import { createHdcEncoder } from '../hdc.js';
import { defineSpace } from './define.js';

export const e9Hdc = defineSpace({
  id: 'E9',
  name: 'hdc',
  purpose: 'robustness: character-trigram hyperdimensional vectors that tolerate typos',
  index: 'dense',
  status: 'implemented',
  // Off until it earns a place: on LoCoMo dev (bench --parts locomo) its trigram neighbours
  // only added noise to BM25 + GloVe E1. Still embedded and indexed, so a weight is all it takes.
  weight: 0,
  encoder: () => createHdcEncoder(),
});
