import { createCodeEncoder } from '../encoders/terms.js';
import { defineSpace } from './define.js';

export const e7Code = defineSpace({
  id: 'E7',
  name: 'code',
  purpose: 'code: identifiers and paths whole and split (camelCase, snake_case, dotted, slashed), BM25-ranked',
  index: 'sparse',
  status: 'implemented',
  // Measured on LoCoMo dev (bench --parts locomo), which holds no code: see README. The code
  // profile of manage_teleological_profile weights it.
  weight: 0,
  encoder: () => createCodeEncoder(),
});
