import * as z from 'zod';
import { cited, citedIdSchema } from '../curation/cited.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { isoDate, nodeIdField } from '../kit/fields.js';
import { nodeNotFound } from '../../services/curation.js';

const input = z.strictObject({ node_id: nodeIdField });

const entrySchema = z.object({
  tx_id: z.number().int(),
  op: z.string(),
  event: z.enum(['created', 'merged_in', 'modified', 'deleted', 'merged_out', 'restored', 'purged']),
  actor: z.string().nullable(),
  rationale: z.string().nullable(),
  at: isoDate,
  reverted_by: z.number().int().nullable(),
  changed_fields: z.array(z.string()),
  merged_from: z.array(z.string()),
  merged_into: z.string().nullable(),
  reversal_hash: z.string().nullable(),
});

const output = z.object({
  kind: z.literal('lineage:v1'),
  node: citedIdSchema,
  state: z.enum(['live', 'deleted', 'absent']),
  entries: z.array(entrySchema),
  truncated: z.boolean(),
});

export const getNodeLineageTool = defineTool({
  name: 'get_node_lineage',
  title: 'Node lineage',
  description: `The history of one node from the transaction log, oldest first: its creation (or merge into existence, with the sources), every modification with the fields it changed, deletes, restores and merges out, each with the transaction id, actor, rationale and reversal hash. Works for deleted nodes too.
When to use: to know where a memory came from and who changed it why before trusting or curating it.
Example: {"node_id": "01J9Z3K6Q4M8W2X5Y7R1T0V3AB"}
Advanced: {"node_id": "[node_0190f3a2c4e5b6d7e8f9a0b1c2d3e4f5]", "format": "json"}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    const lineage = await ctx.services.lineage.of(args.node_id);
    if (!lineage) throw nodeNotFound(args.node_id);
    return {
      kind: 'lineage:v1' as const,
      node: cited(lineage.id),
      state: lineage.state,
      entries: lineage.entries.map((e) => ({ ...e, at: e.at.toISOString() })),
      truncated: lineage.truncated,
    };
  },
  render(r) {
    const lines = r.entries.map(
      (e) =>
        `- tx ${e.tx_id} · ${e.at} · **${e.event}** (${e.op})${e.actor ? ` by ${e.actor}` : ''}${e.changed_fields.length ? ` · ${e.changed_fields.join(', ')}` : ''}${e.merged_from.length ? ` · from ${e.merged_from.join(', ')}` : ''}${e.merged_into ? ` · into ${e.merged_into}` : ''}${e.rationale ? ` — ${e.rationale}` : ''}${e.reverted_by ? ` (reverted by tx ${e.reverted_by})` : ''}`,
    );
    return [`Lineage of ${r.node.citation} (${r.state}), ${r.entries.length} event(s):`, ...lines].join('\n');
  },
});
