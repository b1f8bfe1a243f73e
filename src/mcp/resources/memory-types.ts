import { MEMORY_TYPES } from '../../tools/kit/fields.js';
import { defineResource } from './define.js';
import { singlePage } from './paging.js';

const URI = 'knowledge://memory-types';

const DESCRIPTIONS: Record<(typeof MEMORY_TYPES)[number], string> = {
  episodic: 'An event: something that happened, at a time, to someone.',
  semantic: 'A fact, decision or preference that holds until superseded.',
  procedural: 'How to do something: steps, commands, checklists.',
};

export const memoryTypes = defineResource({
  name: 'memory-types',
  title: 'Memory types',
  uri: URI,
  description: 'The memory_type values store accepts (episodic, semantic, procedural), with what each is for; items plus a memory_types list.',
  version: 1,
  params: () => ({}),
  canonical: () => URI,
  read: (_params, ctx) =>
    singlePage(
      ctx,
      URI,
      MEMORY_TYPES.map((name) => ({ memory_type: name, description: DESCRIPTIONS[name], default: name === 'semantic' })),
      { memory_types: [...MEMORY_TYPES] },
    ),
});
