import * as z from 'zod';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { isoDate, projectIdField, unitInterval } from '../kit/fields.js';
import { aliased } from '../kit/aliases.js';
import { markersFor, renderCards } from '../kit/markdown.js';
import { contractMarkersSchema } from '../kit/payloads.js';
import { navNodeSchema, nodeLine } from '../navigation/shapes.js';

const input = z.strictObject({
  project_id: aliased(projectIdField.optional().describe('Only this project (all when omitted).'), 'project'),
  min_confidence: unitInterval.default(0).describe('Only shortcuts at least this confident, 0..1.'),
  limit: z.number().int().min(1).max(200).default(50),
});

const output = z.object({
  kind: z.literal('shortcuts:v1'),
  shortcuts: z.array(
    z.object({
      edge_id: z.string(),
      from: navNodeSchema,
      to: navNodeSchema,
      confidence: z.number().describe('Noisy-OR of the co-retrievals: 1 − Π(1 − s_a·s_b).'),
      weight: z.number(),
      hops_replaced: z.number().int().describe('Length of the path the shortcut replaces.'),
      path: z.array(navNodeSchema).describe('The path the graph offered before, from one end to the other.'),
      co_retrievals: z.number().int().describe('Retrievals that returned both ends among their first hits.'),
      queries: z.array(z.string()).describe('Some of those queries.'),
      dream_id: z.string().nullable(),
      created_at: isoDate,
    }),
  ),
  contract_markers: contractMarkersSchema,
});

export const getAmortizedShortcutsTool = defineTool({
  name: 'get_amortized_shortcuts',
  title: 'Shortcuts dreams added',
  description: `The live Shortcut edges REM dreams wrote: two memories recent queries returned together while the graph joined them only through a longer path, now one hop apart (get_neighborhood shows them at depth 1). Each with its confidence, the path it replaces, how many retrievals support it and some of their queries. Undo of the dream's REM transaction removes them.
When to use: to see what dreams learned from use, or to review a shortcut before relying on it.
Example: {}
Advanced: {"project_id": "support", "min_confidence": 0.5, "limit": 20}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    const shortcuts = await ctx.services.dreams.shortcuts({ projectId: args.project_id ?? null, minConfidence: args.min_confidence, limit: args.limit });
    return { kind: 'shortcuts:v1' as const, shortcuts, contract_markers: markersFor(shortcuts.length) };
  },
  render(r) {
    return renderCards(
      'shortcut',
      `${r.shortcuts.length} amortized shortcut${r.shortcuts.length === 1 ? '' : 's'}.`,
      r.shortcuts,
      (s) =>
        `${nodeLine(s.from)} ↔ ${nodeLine(s.to)} · confidence ${s.confidence.toFixed(3)} · replaces ${s.hops_replaced} hops via ${s.path.map((n) => n.id).join(' → ')} · ${s.co_retrievals} co-retrievals`,
    );
  },
});
