import * as z from 'zod';
import type { StoreMemoryResult } from '../../services/memory.js';
import { aliased } from '../kit/aliases.js';
import { defineTool, WRITE, type ToolContext } from '../kit/define.js';
import { entryUri } from '../kit/entry.js';
import { collectionRefField, contentField, memoryTypeField, projectIdField, rationale, tagsField, unitInterval } from '../kit/fields.js';

const input = z.strictObject({
  content: aliased(contentField.describe('The memory itself (1–65,536 characters).'), 'text'),
  rationale: rationale('Why this is worth remembering, 10–1,000 characters; recorded on the transaction (history, get_node_lineage).'),
  topic: z.string().trim().min(1).max(256).optional().describe('A short subject line; searched with extra weight.'),
  tags: tagsField.optional().describe('Labels for filtering.'),
  project_id: aliased(projectIdField.default('default').describe('Project (namespace) the memory belongs to.'), 'project'),
  collection: collectionRefField.optional(),
  memory_type: aliased(memoryTypeField.default('semantic').describe('episodic (an event), semantic (a fact), procedural (how to).'), 'type'),
  importance: unitInterval.optional().describe('0..1, default 0.5.'),
  source_uri: z.string().max(2_048).optional().describe('Where the memory came from.'),
});

const output = z.object({
  kind: z.literal('stored_memory:v1'),
  id: z.string(),
  tx_id: z.number().int(),
  project_id: z.string(),
  collection: z.string(),
  memory_type: memoryTypeField,
  rationale: z.string().nullable().describe('As recorded on the transaction.'),
  searchable: z.boolean().describe('Every vector indexed: all search signals find it.'),
  replayed: z.boolean().describe('An earlier call with this idempotency_key made the write; nothing was written now.'),
  embedding_job_id: z.string().nullable(),
  possible_duplicates: z.array(z.object({ id: z.string(), score: z.number(), match: z.enum(['exact', 'near']) })),
});

function payload(r: StoreMemoryResult, why: string | null): z.output<typeof output> {
  return {
    kind: 'stored_memory:v1' as const,
    id: r.node.id,
    tx_id: r.txId,
    project_id: r.node.project_id,
    collection: r.node.collection,
    memory_type: r.node.memory_type as z.output<typeof memoryTypeField>,
    rationale: why,
    searchable: r.searchable,
    replayed: r.replayed,
    embedding_job_id: r.embeddingJobId,
    possible_duplicates: r.possibleDuplicates,
  };
}

async function recordedRationale(ctx: ToolContext, id: string, txId: number): Promise<string | null> {
  return (await ctx.services.lineage.of(id))?.entries.find((e) => e.tx_id === txId)?.rationale ?? null;
}

export const storeMemoryTool = defineTool({
  name: 'store_memory',
  title: 'Store a memory with its rationale',
  description: `Seed 001's store: save one memory durably, saying why. The rationale is required (missing: MISSING_RATIONALE, -32009) and recorded on the transaction, so history and get_node_lineage show why each memory exists.
When to use: when an agent must justify what it remembers (audited curation); otherwise \`store\` does the same without a rationale.
Example: {"content": "Deploys use blue-green with a 5 minute rollback window.", "rationale": "The team agreed on it in the release review."}
Advanced: {"content": "Alice prefers async stand-ups on Mondays.", "rationale": "Stated by Alice in the planning call.", "memory_type": "episodic", "project_id": "team-x", "tags": ["team"], "importance": 0.8}`,
  annotations: WRITE,
  input,
  output,
  waitsFor: { storeVectors: false },
  async handler(args, ctx) {
    const r = await ctx.services.memory.store(args, ctx.actor);
    await ctx.services.navigation.recordAccess(ctx, [r.node]);
    return payload(r, await recordedRationale(ctx, r.node.id, r.txId));
  },
  async replay(write, ctx) {
    const r = await ctx.services.memory.stored(write.entityId, write.txId);
    return r && payload(r, await recordedRationale(ctx, r.node.id, r.txId));
  },
  render(r) {
    const again = r.replayed ? ' Already stored by an earlier call with this idempotency_key: nothing was written now.' : '';
    return `Stored memory \`${r.id}\` in project \`${r.project_id}\` (transaction ${r.tx_id}), because: ${JSON.stringify(r.rationale)}.${again}`;
  },
  resourceLinks: (_args, r) => [entryUri(r.id)],
});
