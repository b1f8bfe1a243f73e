import { defineResource } from './define.js';
import { singlePage } from './paging.js';

const URI = 'knowledge://health';

export const health = defineResource({
  name: 'health',
  title: 'Health',
  uri: URI,
  description:
    "Preflight: version, store driver, queue backend and counts, embedding providers and models, vector index sizes; and seed 004's shape: embedding_provider, embedding_model (E1), one section per store named for it (postgres or pglite: {reachable, collection, vector_size}; bullmq or in-process; usearch: each space's index with dimension and size).",
  version: 2,
  params: () => ({}),
  canonical: () => URI,
  read: async (_params, ctx) => singlePage(ctx, URI, [await ctx.services.health.report()]),
});
