import * as z from 'zod';
import { AppError } from '../../errors.js';
import { defineTool, DESTRUCTIVE } from '../kit/define.js';

const input = z.strictObject({
  steps: z.number().int().min(1).max(50).optional().describe('How many transactions to revert, newest first (1..50, default 1). Not with tx_id.'),
  tx_id: z.number().int().min(1).optional().describe('Revert exactly this transaction instead (an undo transaction is thereby redone). Not with steps or redo.'),
  redo: z.boolean().default(false).describe('true: re-apply the most recently undone transactions instead of undoing.'),
  scope: z.enum(['session', 'all']).default('session').describe("session (default): only this session's transactions; all: anyone's."),
  rationale: z.string().trim().max(1_000).optional().describe('Why, recorded in the history.'),
});

const output = z.object({
  kind: z.literal('undone:v1'),
  tx_id: z.number().int().describe('The new transaction that did the revert (itself undoable).'),
  op: z.enum(['undo', 'redo']),
  reverted_tx_ids: z.array(z.number().int()),
  entities: z.array(
    z.object({
      entity: z
        .enum(['node', 'edge', 'collection', 'signal'])
        .describe('signal: a learning-signal change (coupling and sync state, a neuromodulator adjustment, feedback, a recalibration, a λ refit).'),
      entity_id: z.string(),
      change_type: z.enum(['create', 'update', 'delete', 'restore']),
    }),
  ),
});

export const undoTool = defineTool({
  name: 'undo',
  title: 'Undo or redo transactions',
  description: `Revert the newest transactions (store, update, delete, relate...) atomically, in ONE new transaction that is itself in the history. By default only this session's own writes are undone; {"scope": "all"} undoes anyone's.
Model: {"steps": N} reverts the newest N transactions not yet reverted; {"redo": true} re-applies the newest undos; {"tx_id": T} reverts exactly T. If a later change still in effect touched the same entities, nothing changes and CONFLICT names it.
When to use: a write was a mistake (wrong content, wrong delete). \`history\` lists transaction ids.
Example: {}
Advanced: {"steps": 3, "scope": "all", "rationale": "the import wrote into the wrong project"}`,
  annotations: DESTRUCTIVE,
  input,
  output,
  async handler(args, ctx) {
    if (args.tx_id !== undefined && (args.steps !== undefined || args.redo)) {
      throw new AppError('INVALID_PARAMS', 'Invalid arguments for undo: tx_id cannot be combined with steps or redo.', {
        issues: [{ path: 'tx_id', message: 'give either tx_id, or steps (and redo)' }],
      });
    }
    const r = await ctx.services.history.undo(
      { steps: args.steps ?? 1, redo: args.redo, txId: args.tx_id, rationale: args.rationale ?? null, onlyActor: args.scope === 'all' ? null : ctx.actor },
      ctx.actor,
    );
    // Every front end reloads its signal cache on the announcement; this one before answering.
    if (r.entities.some((e) => e.entity === 'signal')) await ctx.services.signals.refresh();
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
  resourceLinks: () => ['knowledge://history/transactions'],
});
