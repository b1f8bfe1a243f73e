import * as z from 'zod';
import { markersFor, renderCards } from '../kit/markdown.js';
import { contractMarkersSchema } from '../kit/payloads.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { instant, projectIdField } from '../kit/fields.js';
import { sessionKey } from '../../services/navigation/navigation.js';
import { navNode } from '../../services/navigation/views.js';
import { navNodeSchema, nodeLine } from './shapes.js';

const input = z.strictObject({
  limit: z.number().int().min(1).max(100).default(20).describe('How many memories, 1..100.'),
  since: instant().optional().describe('Only memories accessed (or, never accessed, created) at or after this instant (ISO 8601).'),
  session_only: z.boolean().default(false).describe('Only memories this MCP session stored or read.'),
  project_id: projectIdField.optional().describe('Only this project; all projects when omitted.'),
});

const output = z.object({
  kind: z.literal('recentContext:v1'),
  session_only: z.boolean(),
  items: z.array(
    navNodeSchema.extend({
      memory_type: z.string(),
      tags: z.array(z.string()),
      accessed_at: z.string().describe('Last read or write (by this session with session_only); creation time for a memory never read.'),
      access_count: z.number().int(),
      created_at: z.string(),
      broadcast: z.boolean().optional().describe('True for a workspace broadcast in effect (trigger_workspace_broadcast): listed first for every session until it decays.'),
    }),
  ),
  contract_markers: contractMarkersSchema,
});

export const getRecentContextTool = defineTool({
  name: 'get_recent_context',
  title: 'Recently used memories',
  description: `Memories most recently stored or read (by store, search and query), newest access first; with session_only, only those of this MCP session. Workspace broadcasts in effect (trigger_workspace_broadcast) come first for every session, marked broadcast.
When to use: at the start of a turn, to pick up what this conversation has been working with, or after a break to see what was touched lately.
Example: {}
Advanced: {"limit": 50, "since": "2026-03-01T09:00:00Z", "session_only": true, "project_id": "team-x"}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    const items = await ctx.services.navigation.recent({
      session: sessionKey(ctx),
      sessionOnly: args.session_only,
      since: args.since ?? null,
      limit: args.limit,
      projectId: args.project_id ?? null,
    });
    // Workspace broadcasts in effect come first for every session, strongest first (they decay).
    const broadcasts = (await ctx.services.workspace.broadcastsInEffect(args.project_id ?? null)).map((b) => ({
      ...navNode(b.node),
      memory_type: b.node.memory_type,
      tags: b.node.tags,
      accessed_at: b.broadcast.at,
      access_count: Number(b.node.access_count),
      created_at: b.node.created_at.toISOString(),
      broadcast: true,
    }));
    const first = new Set(broadcasts.map((b) => b.id));
    const merged = [...broadcasts, ...items.filter((i) => !first.has(i.id))].slice(0, args.limit);
    return { kind: 'recentContext:v1' as const, session_only: args.session_only, items: merged, contract_markers: markersFor(merged.length) };
  },
  render(r) {
    const heading = `${r.items.length} recent memor${r.items.length === 1 ? 'y' : 'ies'}${r.session_only ? ' of this session' : ''}.`;
    return renderCards('recent', heading, r.items, (n) => `${n.broadcast ? 'broadcast · ' : ''}${nodeLine(n)} · accessed ${n.accessed_at} · ${n.access_count}×\n  ${n.snippet}`);
  },
});
