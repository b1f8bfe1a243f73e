import * as z from 'zod';
import { markersFor, renderCards } from '../kit/markdown.js';
import { contractMarkersSchema } from '../kit/payloads.js';
import { aliased } from '../kit/aliases.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { projectIdField } from '../kit/fields.js';
import { collectionLine, collectionSchema, toCollectionView } from './shapes.js';

const output = z.object({
  kind: z.literal('collections:v1'),
  project_id: z.string().nullable().describe('The project listed; null: every project.'),
  names: z.array(z.string()).describe('Distinct collection names, sorted (what `collection` accepts).'),
  collections: z.array(collectionSchema),
  contract_markers: contractMarkersSchema,
});

export const getCollectionsTool = defineTool({
  name: 'get_collections',
  title: 'List collections',
  description: `List the collections (namespaces inside a project) with what each holds: memories, chunks, documents, bytes. Every project has \`default\`; new_collection adds others.
When to use: before push/store/search with \`collection\`, to see the names that exist (seed 004's get-collections).
Example: {}
Advanced: {"project_id": "payments", "format": "json"}`,
  annotations: READ_ONLY,
  input: z.strictObject({
    project_id: aliased(projectIdField.optional().describe('Only this project (its default is always listed); absent: every project.'), 'project'),
  }),
  output,
  async handler(args, ctx) {
    const collections = (await ctx.services.collections.list(args.project_id)).map(toCollectionView);
    return {
      kind: 'collections:v1' as const,
      project_id: args.project_id ?? null,
      names: [...new Set(collections.map((c) => c.name))].sort(),
      collections,
      contract_markers: markersFor(collections.length),
    };
  },
  render(r) {
    const heading = r.collections.length === 0 ? 'No collections yet: nothing is stored.' : `${r.collections.length} collection${r.collections.length === 1 ? '' : 's'}.`;
    return renderCards('collection', heading, r.collections, collectionLine);
  },
});
