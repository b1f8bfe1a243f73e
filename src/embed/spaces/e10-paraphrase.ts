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
  encoder: () => createParaphraseEncoder(),
});
