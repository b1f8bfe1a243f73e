import * as z from 'zod';
import { AppError } from '../../errors.js';
import { defineTool } from '../../mcp/tool.js';
import { historyFor } from '../../services/history.js';

const input = z.strictObject({
  steps: z.number().int().min(1).max(50).optional().describe('How many transactions to revert, newest first (1..50, default 1). Not with tx_id.'),
  tx_id: z.number().int().min(1).optional().describe('Revert exactly this transaction instead (an undo transaction is thereby redone). Not with steps or redo.'),
  redo: z.boolean().default(false).describe('true: re-apply the most recently undone transactions instead of undoing.'),
  rationale: z.string().trim().max(1_000).optional().describe('Why, recorded in the history.'),
});

const output = z.object({
  kind: z.literal('undone:v1'),
  tx_id: z.number().int().describe('The new transaction that did the revert (itself undoable).'),
  op: z.enum(['undo', 'redo']),
  reverted_tx_ids: z.array(z.number().int()),
  entities: z.array(
    z.object({
      entity: z.enum(['node', 'edge']),
      entity_id: z.string(),
      change_type: z.enum(['create', 'update', 'delete', 'restore']),
    }),
  ),
});

export const undoTool = defineTool({
  name: 'undo',
  title: 'Undo or redo transactions',
  toolset: 'history',
  description: `Revert the newest transactions (store, update, delete, relate...), atomically: every entity they touched goes back to its state before them, in ONE new transaction that is itself in the history.
Model: the undo stack is every transaction not yet reverted except undo transactions; {"steps": N} reverts the newest N of them (op "undo"). {"redo": true, "steps": N} reverts the newest N undo transactions not yet reverted, re-applying what they undid (op "redo"); a redo is an ordinary transaction again, so a later undo undoes it. {"tx_id": T} reverts exactly transaction T (redoing it when T is an undo). If a transaction outside the set changed one of those entities later (and that change is still in effect), nothing is changed and the error CONFLICT names that transaction.
When to use: a write was a mistake (wrong content, wrong delete), or to step back and forth through recent changes. Use \`history\` to see transaction ids.
Example: {}
Advanced: {"steps": 3, "rationale": "the import wrote into the wrong project"} · {"redo": true} · {"tx_id": 42}`,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  input,
  output,
  async handler(args, ctx) {
    if (args.tx_id !== undefined && (args.steps !== undefined || args.redo)) {
      throw new AppError('INVALID_PARAMS', 'Invalid arguments for undo: tx_id cannot be combined with steps or redo.', {
        issues: [{ path: 'tx_id', message: 'give either tx_id, or steps (and redo)' }],
      });
    }
    const r = await historyFor(ctx.app).undo({ steps: args.steps ?? 1, redo: args.redo, txId: args.tx_id, rationale: args.rationale ?? null }, ctx.actor);
    return { kind: 'undone:v1' as const, tx_id: r.txId, op: r.op, reverted_tx_ids: r.revertedTxIds, entities: r.entities };
  },
  render(r) {
    const verb = r.op === 'redo' ? 'Redid' : 'Undid';
    const list = r.entities
      .slice(0, 20)
      .map((e) => `- ${e.entity} \`${e.entity_id}\`: ${e.change_type}`)
      .join('\n');
    const more = r.entities.length > 20 ? `\n- …and ${r.entities.length - 20} more` : '';
    return `${verb} transaction${r.reverted_tx_ids.length === 1 ? '' : 's'} ${r.reverted_tx_ids.join(', ')} in transaction ${r.tx_id} (${r.op === 'redo' ? 'undo' : 'undo with {"redo": true}'} reverses it).\n\n${list}${more}`;
  },
  resourceUri: () => `knowledge://history/transactions`,
});
