import type { EdgeImage } from '../../services/resource-reads.js';
import { defineResource } from './define.js';
import { PAGING, readPaged } from './paging.js';

const URI = 'knowledge://graph/triples';

function tripleItem(edge: EdgeImage): Record<string, unknown> {
  return {
    id: edge.id,
    src: edge.src,
    predicate: edge.predicate,
    dst: edge.dst,
    edge_type: edge.edge_type ?? null,
    weight: edge.weight ?? null,
    valid_from: edge.valid_from ?? null,
    valid_to: edge.valid_to ?? null,
  };
}

export const graphTriples = defineResource({
  name: 'graph-triples',
  title: 'Graph triples',
  uri: URI,
  description: `Every live relation as a triple (id, src, predicate, dst, edge_type, weight, valid_from, valid_to), by id. ${PAGING}`,
  version: 1,
  params: () => ({}),
  canonical: () => URI,
  read: (_params, ctx) => readPaged(ctx, URI, { fetch: (page) => ctx.services.resourceReads.edges(page), keyOf: (edge: EdgeImage) => edge.id, itemOf: tripleItem }),
  covers: (_params, change) => change.entity === 'edge',
});
