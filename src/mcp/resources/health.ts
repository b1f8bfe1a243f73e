import { defineResource } from './define.js';
import { singlePage } from './paging.js';

const URI = 'knowledge://health';

export const health = defineResource({
  name: 'health',
  title: 'Health',
  uri: URI,
  description: 'Preflight: version, store driver, queue backend and counts, embedding providers and models, vector index sizes.',
  version: 1,
  params: () => ({}),
  canonical: () => URI,
  read: async (_params, ctx) => singlePage(ctx, URI, [await ctx.services.health.report()]),
});
