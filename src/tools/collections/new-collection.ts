import * as z from 'zod';
import { aliased } from '../kit/aliases.js';
import { defineTool, IDEMPOTENT_WRITE } from '../kit/define.js';
import { collectionField, projectIdField } from '../kit/fields.js';

const output = z.object({
  kind: z.literal('collection_created:v1'),
  status: z.enum(['created', 'exists']).describe('exists: the project already had it; nothing was written.'),
  project_id: z.string(),
  name: z.string(),
  id: z.string().nullable().describe("The declaration id; null for the implicit 'default'."),
  tx_id: z.number().int().describe('0 when nothing was written; else `undo` with this tx_id removes the collection.'),
});

export const newCollectionTool = defineTool({
  name: 'new_collection',
  title: 'Create a collection',
  description: `Create a collection: a namespace inside a project that push, store, search and query take as \`collection\`. Duplicates are detected per collection, and a search filtered to one never sees the others. Creating one that exists changes nothing. One logged transaction; \`undo\` removes it (its entries, if any, stay).
When to use: to keep one kind of material apart (docs vs chat, one customer's files) inside a project (seed 004's new-collection).
Example: {"name": "runbooks"}
Advanced: {"name": "contracts-2026", "project_id": "legal", "description": "Signed customer contracts, one document each"}`,
  annotations: IDEMPOTENT_WRITE,
  input: z.strictObject({
    name: collectionField.describe('The collection name (letters, digits and . _ : @ / -).'),
    project_id: aliased(projectIdField.default('default').describe('Project the collection belongs to.'), 'project'),
    description: z.string().trim().min(1).max(1_000).optional().describe('What goes in it.'),
  }),
  output,
  async handler(args, ctx) {
    const r = await ctx.services.collections.create(args, ctx.actor);
    return {
      kind: 'collection_created:v1' as const,
      status: r.created ? ('created' as const) : ('exists' as const),
      project_id: args.project_id,
      name: args.name,
      id: r.collection?.id ?? null,
      tx_id: r.txId,
    };
  },
  render(r) {
    return r.status === 'created'
      ? `Created collection \`${r.name}\` in project \`${r.project_id}\` (transaction ${r.tx_id}; \`undo\` removes it).`
      : `Project \`${r.project_id}\` already has collection \`${r.name}\`; nothing changed.`;
  },
  resourceLinks: () => ['knowledge://history/transactions'],
});
