import * as z from 'zod';
import { RECOVERY_WINDOW_DAYS } from '../../services/curation.js';
import { defineTool, WRITE } from '../kit/define.js';
import { isoDate, rationaleField } from '../kit/fields.js';
import { cited, citedIdSchema } from './cited.js';

const input = z.strictObject({
  reversal_hash: z
    .string()
    .trim()
    .regex(/^[0-9a-f]{32}$/, 'must be the 32-hex-digit reversal_hash a curation tool returned')
    .describe('Hash from forget_concept, merge_concepts, annotate_node or boost_importance.'),
  rationale: rationaleField.min(10, 'must be at least 10 characters').optional(),
});

const output = z.object({
  kind: z.literal('restored:v1'),
  tx_id: z.number().int().describe('The restoring transaction (undo reverts it).'),
  reverted_tx_id: z.number().int(),
  operation: z.string().describe('What was reverted: forget, merge, annotate or boost.'),
  operated_at: isoDate,
  nodes: z.array(citedIdSchema.extend({ change: z.string() })),
  edges_restored: z.number().int(),
  searchable: z.boolean().describe("Restored nodes' vectors are indexed in every space: all search signals find them."),
  keyword_searchable: z
    .boolean()
    .describe(
      'Keyword search finds the restored nodes now (vectors kept at deletion come back at once; a node that had to be re-embedded gets its other vectors through the embed job).',
    ),
});

export const restoreFromHashTool = defineTool({
  name: 'restore_from_hash',
  title: 'Restore from a reversal hash',
  description: `Bring back the exact state before a curation operation (forget, merge, annotate, boost) from its reversal_hash, within ${RECOVERY_WINDOW_DAYS} days: nodes and edges return to their prior images and restored nodes are re-indexed in every embedding space. After the window it answers RECOVERY_WINDOW_EXPIRED with the deletion time.
When to use: a memory was forgotten or merged by mistake; search_tombstones shows the hash of each soft-deleted node.
Example: {"reversal_hash": "9f2c4e1a7b3d5f6e8a0c2e4f6a8b0c1d"}
Advanced: {"reversal_hash": "9f2c4e1a7b3d5f6e8a0c2e4f6a8b0c1d", "rationale": "the merge mixed up two different projects", "format": "both"}`,
  annotations: WRITE,
  input,
  output,
  async handler(args, ctx) {
    const r = await ctx.services.curation.restore(args.reversal_hash, { actor: ctx.actor, rationale: args.rationale ?? null });
    return {
      kind: 'restored:v1' as const,
      tx_id: r.txId,
      reverted_tx_id: r.revertedTxId,
      operation: r.op,
      operated_at: r.operatedAt.toISOString(),
      nodes: r.entities.filter((e) => e.entity === 'node').map((e) => ({ ...cited(e.entity_id), change: e.change_type })),
      edges_restored: r.entities.filter((e) => e.entity === 'edge').length,
      searchable: r.vectors.searchable,
      keyword_searchable: r.vectors.keywordSearchable,
    };
  },
  render(r) {
    const nodes = r.nodes.map((n) => `- ${n.citation} ${n.change}`).join('\n');
    return `Reverted the ${r.operation} of ${r.operated_at} (transaction ${r.reverted_tx_id}) in transaction ${r.tx_id}:\n${nodes}${r.edges_restored ? `\n${r.edges_restored} edge(s) restored.` : ''}`;
  },
});
