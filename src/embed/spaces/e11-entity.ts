import { createEntityEncoder } from '../encoders/terms.js';
import { defineSpace } from './define.js';

export const e11Entity = defineSpace({
  id: 'E11',
  name: 'entity',
  purpose: 'factuality: named entities, handles, ids, numbers and dates, BM25-ranked',
  index: 'sparse',
  status: 'implemented',
  // Measured on LoCoMo dev (bench --parts locomo): see README.
  weight: 0,
  encoder: () => createEntityEncoder(),
});
