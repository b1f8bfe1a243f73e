import * as z from 'zod';
import { defineTool, WRITE } from '../kit/define.js';
import { nodeIdField, rationale } from '../kit/fields.js';
import { cited, citedIdSchema, reversalHashField } from './cited.js';

const input = z.strictObject({
  node_id: nodeIdField,
  delta: z.number().min(-0.5, 'must be at least -0.5').max(0.5, 'must be at most 0.5').describe('Importance change in [-0.5, 0.5]; the result is clamped to [0, 1].'),
  rationale: rationale(),
});

const output = z.object({
  kind: z.literal('boosted:v1'),
  node: citedIdSchema,
  tx_id: z.number().int(),
  reversal_hash: reversalHashField,
  previous_importance: z.number(),
  importance: z.number(),
  clamped: z.boolean().describe('True when the result hit 0 or 1.'),
});

export const boostImportanceTool = defineTool({
  name: 'boost_importance',
  title: 'Boost or lower importance',
  description: `Move a memory's importance by delta (−0.5…0.5); the result stays within [0, 1]. Requires a rationale (10–1,000 characters). One transaction; \`undo\` or restore_from_hash reverts it.
When to use: a memory matters more (or less) than its stored importance says, e.g. the user called it critical, or it is trivia.
Example: {"node_id": "01J9Z3K6Q4M8W2X5Y7R1T0V3AB", "delta": 0.2, "rationale": "the user said this deadline is critical"}
Advanced: {"node_id": "[node_0190f3a2c4e5b6d7e8f9a0b1c2d3e4f5]", "delta": -0.5, "rationale": "one-off trivia, keep it out of the way", "format": "json"}`,
  annotations: WRITE,
  input,
  output,
  async handler(args, ctx) {
    const r = await ctx.services.curation.boost(args.node_id, args.delta, { actor: ctx.actor, rationale: args.rationale });
    return {
      kind: 'boosted:v1' as const,
      node: cited(r.result.node.id),
      tx_id: r.txId,
      reversal_hash: r.reversalHash,
      previous_importance: r.result.previous,
      importance: r.result.node.importance,
      clamped: r.result.clamped,
    };
  },
  render(r) {
    return `Importance of ${r.node.citation}: ${r.previous_importance.toFixed(3)} → ${r.importance.toFixed(3)}${r.clamped ? ' (clamped to [0, 1])' : ''} in transaction ${r.tx_id}.\nreversal_hash: \`${r.reversal_hash}\``;
  },
});
