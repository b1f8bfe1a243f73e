import { JsonRpcError } from '../../errors.js';
import { entrySchema, entryUri, toEntry } from '../../tools/kit/entry.js';
import { defineResource } from './define.js';

export const entry = defineResource({
  name: 'entry',
  title: 'One memory entry',
  template: 'knowledge://entries/{id}',
  description: 'One live entry by id; answers the usual page with the entry as its only item. The id completes by prefix.',
  version: 1,
  item: entrySchema,
  params: (vars) => ({ id: vars.id! }),
  canonical: ({ id }) => entryUri(id),
  async read({ id }, { services }) {
    const asOfTxId = await services.reads.latestTxId();
    const node = await services.reads.entry(id, asOfTxId);
    if (!node) throw JsonRpcError.of('RESOURCE_NOT_FOUND', `Resource not found: no live entry ${id}.`, { uri: entryUri(id) });
    return { resource_uri: entryUri(id), as_of_tx_id: asOfTxId, items: [toEntry(node)], next_cursor: null };
  },
  covers: ({ id }, change) => change.entity === 'node' && change.id === id,
  complete: { id: (value, { services }) => services.resourceReads.entryIdsWithPrefix(value, 100) },
});
