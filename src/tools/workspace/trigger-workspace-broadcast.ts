import * as z from 'zod';
import { defineTool, WRITE } from '../kit/define.js';
import { nodeIdField, rationaleField } from '../kit/fields.js';
import { workspaceProjectField } from './shapes.js';

const input = z.strictObject({
  project_id: workspaceProjectField,
  node_id: nodeIdField.optional().describe("The memory to broadcast; the workspace's winner when omitted."),
  rationale: rationaleField.optional(),
});

const output = z.object({
  kind: z.literal('workspaceBroadcast:v1'),
  project_id: z.string(),
  node_id: z.string(),
  was_winner: z.boolean().describe('True when the broadcast memory was the workspace winner.'),
  member: z.boolean().describe('True when the memory was in the workspace.'),
  activation: z.number().describe('Its activation at the broadcast (0 outside the workspace).'),
  broadcast_at: z.string(),
  hold_minutes: z.number().describe('It stays first in get_recent_context for this long, its strength falling linearly to 0.'),
  tx_id: z.number().int(),
  reversal_hash: z.string().nullable().describe('restore_from_hash (or undo) retracts the broadcast.'),
});

export const triggerWorkspaceBroadcastTool = defineTool({
  name: 'trigger_workspace_broadcast',
  title: 'Broadcast the workspace winner to every session',
  description: `Broadcasts the workspace's winner (or the memory you name): for the hold time it comes first in get_recent_context for every session, strongest broadcast first, its strength decaying to 0. One logged transaction on the memory's metadata; \`undo\` retracts it.
When to use: a memory should be in front of every agent working on the project now (a decision, an incident, a deadline).
Example: {}
Advanced: {"project_id": "team-x", "node_id": "01J9Z3K6Q4M8W2X5Y7R1T0V3AB", "rationale": "the incident is what everyone must look at first"}`,
  annotations: WRITE,
  input,
  output,
  async handler(args, ctx) {
    const r = await ctx.services.workspace.broadcast(args.project_id, args.node_id ?? null, { actor: ctx.actor, rationale: args.rationale ?? null });
    return {
      kind: 'workspaceBroadcast:v1' as const,
      project_id: args.project_id,
      node_id: r.node.id,
      was_winner: r.workspace.winner?.id === r.node.id,
      member: r.member,
      activation: r.broadcast.activation,
      broadcast_at: r.broadcast.at,
      hold_minutes: r.broadcast.hold_minutes,
      tx_id: r.txId,
      reversal_hash: r.reversalHash,
    };
  },
  render(r) {
    return `Broadcast ${r.node_id} (activation ${r.activation}${r.was_winner ? ', the winner' : ''}) at ${r.broadcast_at} for ${r.hold_minutes} min in transaction ${r.tx_id}; it now comes first in every session's get_recent_context.`;
  },
});
