import { createPositionEncoder } from '../encoders/temporal.js';
import { defineSpace } from './define.js';

export const e4TemporalPositional = defineSpace({
  id: 'E4',
  name: 'temporal-positional',
  purpose: 'ordering: position of the memory among its project memories (sinusoidal encoding)',
  index: 'dense',
  status: 'implemented',
  // Neighbourhood in the conversation, for re-ranking around a known hit; a text query has no
  // position, so it is unweighted in default fusion (LoCoMo dev, bench --parts locomo).
  weight: 0,
  encoder: () => createPositionEncoder(),
});
