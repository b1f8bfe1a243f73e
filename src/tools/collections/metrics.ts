import * as z from 'zod';
import { aliased } from '../kit/aliases.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { collectionRefField, projectIdField } from '../kit/fields.js';
import { collectionLine, collectionSchema, toCollectionView } from './shapes.js';

const output = z.object({
  kind: z.literal('metrics:v1'),
  project_id: z.string().nullable(),
  collection: z.string().nullable(),
  documentsIndexed: z.number().int().describe('Distinct pushed documents in scope (by source_uri, else by the text).'),
  chunksIndexed: z.number().int().describe('Live chunks in scope.'),
  lastChunkSize: z.number().int().nullable().describe('chunk_size of the most recently inserted chunk; null before any push.'),
  memories: z.number().int().describe('Live entries other than chunks.'),
  bytes: z.number().int().describe('UTF-8 bytes of the live entries in scope.'),
  collections: z.array(collectionSchema).describe('The same figures per collection.'),
});

export const metricsTool = defineTool({
  name: 'metrics',
  title: 'Ingestion metrics',
  description: `Ingestion figures counted from the stored entries (not process counters, so they survive restarts and follow deletes and undo): documentsIndexed, chunksIndexed, lastChunkSize, memories and bytes, in total and per collection.
When to use: to check what push has ingested into a project or collection (seed 004's metrics).
Example: {}
Advanced: {"project_id": "payments", "collection": "runbooks"}`,
  annotations: READ_ONLY,
  input: z.strictObject({
    project_id: aliased(projectIdField.optional().describe('Only this project; absent: every project.'), 'project'),
    collection: collectionRefField.optional().describe('Only this collection.'),
  }),
  output,
  async handler(args, ctx) {
    const m = await ctx.services.collections.metrics({ projectId: args.project_id, collection: args.collection });
    return {
      kind: 'metrics:v1' as const,
      project_id: args.project_id ?? null,
      collection: args.collection ?? null,
      documentsIndexed: m.documentsIndexed,
      chunksIndexed: m.chunksIndexed,
      lastChunkSize: m.lastChunkSize,
      memories: m.memories,
      bytes: m.bytes,
      collections: m.collections.map(toCollectionView),
    };
  },
  render(r) {
    const scope = [r.project_id ? `project \`${r.project_id}\`` : 'every project', r.collection ? `collection \`${r.collection}\`` : null].filter(Boolean).join(', ');
    const head = `Metrics for ${scope}: ${r.documentsIndexed} documents in ${r.chunksIndexed} chunks (last chunk size ${r.lastChunkSize ?? 'n/a'}), ${r.memories} other entries, ${r.bytes} bytes.`;
    return [head, ...r.collections.map((c) => `- ${collectionLine(c)}`)].join('\n');
  },
});
