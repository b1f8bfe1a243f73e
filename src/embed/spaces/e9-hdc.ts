import { createHdcEncoder } from '../hdc.js';
import { defineSpace } from './define.js';

export const e9Hdc = defineSpace({
  id: 'E9',
  name: 'hdc',
  purpose: 'robustness: character-trigram hyperdimensional vectors that tolerate typos',
  index: 'dense',
  status: 'implemented',
  // Rescues typos and rare tokens but is noisy on paraphrase, so it counts half of E1.
  weight: 0.5,
  encoder: () => createHdcEncoder(),
});
