import * as z from 'zod';
import { FORGET_REASONS, RECOVERY_WINDOW_DAYS } from '../../services/curation.js';
import { defineTool, DESTRUCTIVE } from '../kit/define.js';
import { nodeIdField, rationale } from '../kit/fields.js';
import { cited, citedIdSchema, reversalHashField } from './cited.js';

const input = z.strictObject({
  node_id: nodeIdField,
  soft_delete: z
    .boolean()
    .default(true)
    .describe(`true (default): tombstone, restorable for ${RECOVERY_WINDOW_DAYS} days. false: purge for good, only with reason user_requested.`),
  reason: z.enum(FORGET_REASONS),
  rationale: rationale('Detailed explanation, 10–1,000 characters.'),
});

const output = z.object({
  kind: z.literal('forgotten:v1'),
  node: citedIdSchema,
  tx_id: z.number().int(),
  soft_delete: z.boolean(),
  reason: z.enum(FORGET_REASONS),
  reversal_hash: reversalHashField,
  recoverable_until: z.string().nullable().describe('ISO 8601; null after a purge.'),
  edges_removed: z.number().int(),
});

export const forgetConceptTool = defineTool({
  name: 'forget_concept',
  title: 'Forget a concept',
  description: `Soft-delete a memory (default): it leaves search and reads, its edges are tombstoned with it, and restore_from_hash (or \`undo\`) brings it back exactly for ${RECOVERY_WINDOW_DAYS} days. soft_delete: false purges the row, vectors and edges for good and needs reason "user_requested". A second soft delete answers TOMBSTONE_EXISTS.
When to use: a memory is obsolete, a duplicate, wrong, or the user asked to forget it. search_tombstones lists what was forgotten.
Example: {"node_id": "01J9Z3K6Q4M8W2X5Y7R1T0V3AB", "reason": "obsolete", "rationale": "the staging cluster was retired in November"}
Advanced: {"node_id": "[node_0190f3a2c4e5b6d7e8f9a0b1c2d3e4f5]", "soft_delete": false, "reason": "user_requested", "rationale": "the user asked to erase their home address"}`,
  annotations: DESTRUCTIVE,
  input,
  output,
  async handler(args, ctx) {
    const r = await ctx.services.curation.forget(args.node_id, { soft: args.soft_delete, reason: args.reason }, { actor: ctx.actor, rationale: args.rationale });
    const deletedAt = r.result.node.deleted_at;
    return {
      kind: 'forgotten:v1' as const,
      node: cited(r.result.node.id),
      tx_id: r.txId,
      soft_delete: !r.result.purged,
      reason: args.reason,
      reversal_hash: r.reversalHash,
      recoverable_until: !r.result.purged && deletedAt ? new Date(deletedAt.getTime() + RECOVERY_WINDOW_DAYS * 86_400_000).toISOString() : null,
      edges_removed: r.result.edges,
    };
  },
  render(r) {
    return r.soft_delete
      ? `Tombstoned ${r.node.citation} (${r.reason}) in transaction ${r.tx_id}${r.edges_removed ? ` with ${r.edges_removed} edge(s)` : ''}. Restorable until ${r.recoverable_until} with restore_from_hash \`${r.reversal_hash}\`.`
      : `Purged ${r.node.citation} (${r.reason}) in transaction ${r.tx_id}, with ${r.edges_removed} edge(s) and its vectors. restore_from_hash cannot bring it back.`;
  },
});
