import * as z from 'zod';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { renderCards } from '../kit/markdown.js';
import { nodeLine } from '../navigation/shapes.js';
import { memberSchema, workspaceProjectField } from './shapes.js';

const input = z.strictObject({ project_id: workspaceProjectField });

const output = z.object({
  kind: z.literal('workspaceStatus:v1'),
  project_id: z.string(),
  candidates: z.number().int().describe('Memories that competed (the newest 5,000 of the project).'),
  members: z.array(memberSchema).describe('The most activated memories, highest first (CONTEXT_GRAPH_WORKSPACE_SIZE, default 7).'),
  winner: z.string().nullable().describe('Id of the most activated memory: what trigger_workspace_broadcast broadcasts by default.'),
  margin: z.number().nullable().describe("Winner's activation minus the runner-up's."),
});

export const getWorkspaceStatusTool = defineTool({
  name: 'get_workspace_status',
  title: 'Global workspace: memories competing for attention',
  description: `The global workspace of a project: the few memories with the highest activation (recency of last read or write, importance, how often retrieved, UTL learning magnitude L), each with its parts and its share of the competition, and the winner.
When to use: to see what the store is "attending to" now, before broadcasting it to every session with trigger_workspace_broadcast.
Example: {}
Advanced: {"project_id": "team-x", "format": "json"}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    const ws = await ctx.services.workspace.workspace(args.project_id);
    return { kind: 'workspaceStatus:v1' as const, project_id: ws.project_id, candidates: ws.candidates, members: ws.members, winner: ws.winner?.id ?? null, margin: ws.margin };
  },
  render(r) {
    const heading = `Workspace of ${r.project_id}: ${r.members.length} of ${r.candidates} memories${r.winner ? `; winner ${r.winner} by ${r.margin ?? 0}` : ''}.`;
    return renderCards(
      'workspace',
      heading,
      r.members,
      (m) =>
        `${nodeLine(m)} · activation ${m.activation} (share ${m.share}; recency ${m.parts.recency}, importance ${m.parts.importance}, frequency ${m.parts.frequency}, L ${m.parts.learning ?? 'n/a'})${m.broadcast_strength !== null ? ` · broadcast ${m.broadcast_strength}` : ''}\n  ${m.snippet}`,
    );
  },
});
