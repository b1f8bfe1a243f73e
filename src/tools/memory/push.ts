import * as z from 'zod';
import { entryLinks } from '../kit/entry.js';
import { aliased } from '../kit/aliases.js';
import { defineTool, IDEMPOTENT_WRITE } from '../kit/define.js';
import { collectionRefField, memoryTypeField, projectIdField, tagsField } from '../kit/fields.js';

const input = z.strictObject({
  text: aliased(
    z.string().min(1, 'must not be empty').max(2_000_000, 'must be at most 2,000,000 characters').describe('The document to index; it is split into chunks.'),
    'content',
  ),
  project_id: aliased(projectIdField.default('default').describe('Project the chunks belong to.'), 'project'),
  collection: collectionRefField
    .default('default')
    .describe('Collection inside the project (any but "default" is made with new_collection); duplicates are skipped per collection.'),
  memory_type: aliased(memoryTypeField.default('semantic'), 'type'),
  tags: tagsField.default([]).describe('Tags for every chunk (a single string is accepted).'),
  source_uri: z.string().min(1).max(2_048).optional().describe('Where the document lives; re-pushing the same source replaces changed chunks in place.'),
  topic: z.string().trim().min(1).max(256).optional(),
  chunk_size: z.number().int().min(16).max(2_048).default(256).describe('Maximum tokens per chunk (16..2048, default 256).'),
});

const output = z.object({
  kind: z.literal('push:v1'),
  status: z.literal('ok'),
  project_id: z.string(),
  collection: z.string(),
  tx_id: z.number().int().describe('0 when nothing changed (every chunk was a duplicate).'),
  chunksIndexed: z.number().int(),
  chunkSize: z.number().int(),
  inserted: z.number().int(),
  updated: z.number().int(),
  skippedDuplicates: z.number().int(),
  ids: z.object({ inserted: z.array(z.string()), updated: z.array(z.string()), skipped: z.array(z.string()) }),
  embedding: z.object({ searchable: z.boolean(), job_ids: z.array(z.string()) }),
});

export const pushTool = defineTool({
  name: 'push',
  title: 'Push a document',
  description: `Index a long text: it is split into token-bounded chunks, each hashed; chunks already stored in the project's collection are skipped, so pushing the same text twice changes nothing. Reports chunksIndexed, inserted, updated, skippedDuplicates.
When to use: to ingest notes, docs or transcripts; use \`store\` for a single fact. Embedding runs in the background (progress notifications when requested).
Example: {"text": "Our deploy process. Step one: …", "source_uri": "file://docs/deploy.md"}
Advanced: {"text": "…", "project_id": "payments", "collection": "runbooks", "memory_type": "procedural", "tags": ["runbook"], "source_uri": "https://wiki/runbooks/payments", "chunk_size": 128}`,
  annotations: IDEMPOTENT_WRITE,
  input,
  output,
  async handler(args, ctx) {
    const r = await ctx.services.ingest.push(args, ctx.actor, (done, total) => ctx.progress(done, total, 'embedding chunks'));
    return {
      kind: 'push:v1' as const,
      status: 'ok' as const,
      project_id: args.project_id,
      collection: args.collection,
      tx_id: r.txId,
      chunksIndexed: r.chunks,
      chunkSize: args.chunk_size,
      inserted: r.inserted.length,
      updated: r.updated.length,
      skippedDuplicates: r.skipped.length,
      ids: { inserted: r.inserted, updated: r.updated, skipped: r.skipped },
      embedding: { searchable: r.embedding.searchable, job_ids: r.embedding.jobIds },
    };
  },
  render(r) {
    return `Pushed ${r.chunksIndexed} chunk${r.chunksIndexed === 1 ? '' : 's'} (≤ ${r.chunkSize} tokens) to \`${r.project_id}\`/\`${r.collection}\`: ${r.inserted} inserted, ${r.updated} updated, ${r.skippedDuplicates} skipped as duplicates${r.tx_id ? ` (transaction ${r.tx_id})` : ''}.${r.embedding.searchable ? '' : ' Vector search picks the new chunks up when embedding finishes.'}`;
  },
  resourceLinks: (_args, r) => entryLinks([...r.ids.inserted, ...r.ids.updated].map((id) => ({ id }))),
});
