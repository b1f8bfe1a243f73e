import * as z from 'zod';
import { AppError } from '../../errors.js';
import { defineTool, DESTRUCTIVE } from '../kit/define.js';
import { nodeIdField } from '../kit/fields.js';

const idField = nodeIdField;

const input = z.strictObject({
  id: idField.optional().describe('Id of one entry to delete.'),
  ids: z.array(idField).min(1).max(100).optional().describe('Ids of up to 100 entries to delete together.'),
  rationale: z.string().trim().max(1_000).optional().describe('Why, recorded in the history.'),
});

const output = z.object({
  kind: z.literal('deleted:v1'),
  tx_id: z.number().int(),
  ids: z.array(z.string()),
  edges_deleted: z.number().int().describe('Relations touching the entries, tombstoned with them.'),
});

export const deleteTool = defineTool({
  name: 'delete',
  title: 'Delete memories',
  description: `Soft-delete entries (and the relations touching them) in one transaction: they disappear from queries and their vectors are withdrawn, but the transaction log keeps them and \`undo\` brings them back.
When to use: a memory is wrong, duplicated or must be forgotten. Prefer \`update\` with supersedes for facts that merely changed.
Example: {"id": "01J9Z3K6Q4M8W2X5Y7R1T0V3AB"}
Advanced: {"ids": ["01J9Z3K6Q4M8W2X5Y7R1T0V3AB", "01J9Z3K7B2C4D6E8F0G1H3J5KM"], "rationale": "duplicates of the deployment runbook entry"}`,
  annotations: DESTRUCTIVE,
  input,
  output,
  async handler(args, ctx) {
    const ids = [...(args.id !== undefined ? [args.id] : []), ...(args.ids ?? [])];
    if (ids.length === 0) {
      throw new AppError('INVALID_PARAMS', 'Invalid arguments for delete: give id or ids.', { issues: [{ path: 'id', message: 'id or ids is required' }] });
    }
    if (new Set(ids).size > 100) {
      throw new AppError('INVALID_PARAMS', 'Invalid arguments for delete: at most 100 ids at once.', { issues: [{ path: 'ids', message: 'at most 100 ids', maximum: 100 }] });
    }
    const r = await ctx.services.entries.delete({ ids, rationale: args.rationale ?? null }, ctx.actor);
    return { kind: 'deleted:v1' as const, tx_id: r.txId, ids: r.ids, edges_deleted: r.edgesDeleted };
  },
  render(r) {
    const list = r.ids.map((id) => `\`${id}\``).join(', ');
    return `Deleted ${r.ids.length} entr${r.ids.length === 1 ? 'y' : 'ies'} (${list})${r.edges_deleted ? ` and ${r.edges_deleted} relation${r.edges_deleted === 1 ? '' : 's'}` : ''} in transaction ${r.tx_id}. \`undo\` brings ${r.ids.length === 1 ? 'it' : 'them'} back.`;
  },
  resourceLinks: () => ['knowledge://history/transactions'],
});
