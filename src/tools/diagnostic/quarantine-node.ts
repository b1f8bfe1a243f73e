import * as z from 'zod';
import { cited, citedIdSchema, reversalHashField } from '../curation/cited.js';
import { defineTool, WRITE } from '../kit/define.js';
import { nodeIdField, rationale } from '../kit/fields.js';

const input = z.strictObject({
  node_id: nodeIdField,
  action: z.enum(['quarantine', 'release']).default('quarantine').describe('quarantine: leave the memory out of search; release: serve it again.'),
  rationale: rationale(),
});

const output = z.object({
  kind: z.literal('quarantine:v1'),
  node: citedIdSchema,
  quarantined: z.boolean(),
  tx_id: z.number().int(),
  reversal_hash: reversalHashField,
});

export const quarantineNodeTool = defineTool({
  name: 'quarantine_node',
  title: 'Quarantine or release a memory',
  description: `Quarantine a memory: it stays stored and readable by id (query, hydrate_citation) but search no longer serves it, and homeostatic_status lists it. Release serves it again. Requires a rationale; one transaction, reverted by \`undo\` or restore_from_hash.
When to use: homeostatic_status reports semantic cancer, or check_adversarial flags a stored memory, and you want it out of answers without deleting it.
Example: {"node_id": "01J9Z3K6Q4M8W2X5Y7R1T0V3AB", "rationale": "dominates unrelated queries (homeostatic_status)"}
Advanced: {"node_id": "[node_0190f3a2c4e5b6d7e8f9a0b1c2d3e4f5]", "action": "release", "rationale": "rewritten; no longer dominates"}`,
  annotations: WRITE,
  input,
  output,
  async handler(args, ctx) {
    const r = await ctx.services.homeostasis.setQuarantine(args.node_id, args.action === 'quarantine', { actor: ctx.actor, rationale: args.rationale });
    return { kind: 'quarantine:v1' as const, node: cited(r.result.id), quarantined: args.action === 'quarantine', tx_id: r.txId, reversal_hash: r.reversalHash };
  },
  render(r) {
    return `${r.node.citation} ${r.quarantined ? 'quarantined: search leaves it out' : 'released: search serves it again'} (transaction ${r.tx_id}).\nreversal_hash: \`${r.reversal_hash}\``;
  },
});
