import * as z from 'zod';
import { entryUri } from '../kit/entry.js';
import { aliased } from '../kit/aliases.js';
import type { StoreMemoryResult } from '../../services/memory.js';
import { defineTool, WRITE } from '../kit/define.js';
import { collectionRefField, instant, contentField, isoDate, memoryTypeField, projectIdField, tagsField, unitInterval } from '../kit/fields.js';

const input = z
  .strictObject({
    content: aliased(contentField.describe('The memory itself: one fact, decision, preference or observation.'), 'text'),
    topic: z.string().trim().min(1).max(256).optional().describe('A short subject line; searched with extra weight.'),
    tags: tagsField.optional().describe('Labels for filtering, e.g. ["deploy", "backend"].'),
    project_id: aliased(projectIdField.default('default').describe('Project (namespace) the memory belongs to.'), 'project'),
    collection: collectionRefField.optional(),
    memory_type: aliased(memoryTypeField.default('semantic').describe('episodic (an event), semantic (a fact), procedural (how to).'), 'type'),
    importance: unitInterval.optional().describe('0..1, default 0.5.'),
    confidence: unitInterval.optional().describe('0..1, default 1.'),
    source_uri: z.string().max(2_048).optional().describe('Where the memory came from (URL, file, conversation id).'),
    valid_from: instant().optional().describe('When the fact starts to hold; recording time is kept apart.'),
    valid_to: instant().optional().describe('When the fact stops holding.'),
  })
  .refine((a) => !a.valid_from || !a.valid_to || a.valid_from.getTime() <= a.valid_to.getTime(), { message: 'valid_from must not be after valid_to', path: ['valid_to'] });

const output = z.object({
  kind: z.literal('stored:v1'),
  id: z.string(),
  tx_id: z.number().int(),
  project_id: z.string(),
  collection: z.string(),
  memory_type: memoryTypeField,
  content_hash: z.string(),
  created_at: isoDate,
  searchable: z.boolean().describe('Every search signal finds it from now on (a search in this server waits for vectors still being indexed, up to embed-wait-ms).'),
  keyword_searchable: z.boolean().describe('Keyword search finds it now.'),
  replayed: z.boolean().describe('An earlier call with this idempotency_key made the write; nothing was written now.'),
  embedding_job_id: z.string().nullable().describe('null: the queue was down; the embedding is owed durably and queued once it is back.'),
  possible_duplicates: z
    .array(z.object({ id: z.string(), score: z.number(), match: z.enum(['exact', 'near']) }))
    .describe('Live entries in the same project and collection with the same content (exact) or nearly the same meaning (near); nothing was merged.'),
});

/** What is true of the new memory's searchability, in one sentence. */
function searchability(r: z.output<typeof output>): string {
  if (r.replayed) return ' Already stored by an earlier call with this idempotency_key: nothing was written now.';
  if (r.searchable) return '';
  const now = r.keyword_searchable ? ' Keyword search finds it now;' : ' Not searchable yet;';
  return r.embedding_job_id
    ? `${now} vector search once embedding job \`${r.embedding_job_id}\` has run.`
    : `${now} the job queue is unavailable, so vector search picks it up once the queue is back (the embedding is owed in the database, nothing is lost).`;
}

function storedPayload(r: StoreMemoryResult): z.output<typeof output> {
  return {
    kind: 'stored:v1' as const,
    id: r.node.id,
    tx_id: r.txId,
    project_id: r.node.project_id,
    collection: r.node.collection,
    memory_type: r.node.memory_type as z.output<typeof memoryTypeField>,
    content_hash: r.node.content_hash,
    created_at: r.node.created_at.toISOString(),
    searchable: r.searchable,
    keyword_searchable: r.keywordSearchable,
    replayed: r.replayed,
    embedding_job_id: r.embeddingJobId,
    possible_duplicates: r.possibleDuplicates,
  };
}

export const storeTool = defineTool({
  name: 'store',
  title: 'Store a memory',
  description: `Save one memory (fact, decision, preference, event or procedure) durably; every store is a logged transaction.
When to use: whenever the conversation produces something worth knowing later. Store one idea per call with a topic and tags.
Example: {"content": "Deploys use blue-green with a 5 minute rollback window.", "topic": "deployment", "tags": ["ops"]}
Advanced: {"content": "Alice prefers async stand-ups on Mondays.", "memory_type": "episodic", "project_id": "team-x", "importance": 0.8, "source_uri": "slack://C123/p456"}`,
  annotations: WRITE,
  input,
  output,
  waitsFor: { storeVectors: false },
  async handler(args, ctx) {
    const r = await ctx.services.memory.store(args, ctx.actor);
    await ctx.services.navigation.recordAccess(ctx, [r.node]);
    return storedPayload(r);
  },
  async replay(write, ctx) {
    const r = await ctx.services.memory.stored(write.entityId, write.txId);
    return r && storedPayload(r);
  },
  render(r) {
    const dupes = r.possible_duplicates.length
      ? `\n\nPossible duplicates (nothing was merged): ${r.possible_duplicates.map((d) => `\`${d.id}\` (${d.match}, ${d.score})`).join(', ')}. Use \`update\` with \`supersedes\` or \`delete\` if one is stale.`
      : '';
    return `Stored memory \`${r.id}\` in project \`${r.project_id}\` (transaction ${r.tx_id}).${searchability(r)}${dupes}`;
  },
  resourceLinks: (_args, r) => [entryUri(r.id)],
});
