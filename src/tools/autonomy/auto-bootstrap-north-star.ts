import * as z from 'zod';
import { defineTool, WRITE } from '../kit/define.js';
import { rationaleField } from '../kit/fields.js';
import { navNodeSchema } from '../navigation/shapes.js';
import { workspaceProjectField } from '../workspace/shapes.js';

const input = z.strictObject({ project_id: workspaceProjectField, rationale: rationaleField.optional() });

const output = z.object({
  kind: z.literal('northStar:v1'),
  project_id: z.string(),
  status: z.enum(['set', 'not_enough_memories']),
  north_star_id: z.string().nullable().describe('The goal node holding the north star.'),
  label: z.string().nullable(),
  source: z
    .enum(['manifest', 'dominant_cluster'])
    .nullable()
    .describe('manifest: memories tagged manifest or pinned; else the heaviest E1 cluster of the most important memories.'),
  members: z.number().int().describe('Memories the goal vector is the importance-weighted mean of.'),
  clusters: z.number().int().describe('Clusters found (0 for a manifest).'),
  terms: z.array(z.string()).describe('Words that set those memories apart.'),
  baseline: z.number().nullable().describe("Mean cosine of the project's memories to the goal vector now: get_alignment_drift compares the recent EWMA with it."),
  replaced: z.string().nullable().describe('The previous north star, retired in the same transaction.'),
  tx_id: z.number().int().nullable(),
  reversal_hash: z.string().nullable(),
  sample: z.array(navNodeSchema),
  needed: z.number().int().nullable().describe('With not_enough_memories: embedded memories needed.'),
});

export const autoBootstrapNorthStarTool = defineTool({
  name: 'auto_bootstrap_north_star',
  title: "Set the project's north star (goal vector)",
  description: `Derives the project's goal vector: from memories tagged manifest or pinned when there are any, else from the dominant cluster (greatest total importance) of its most important memories, clustered on E1 by k-means. Stores it as a goal node (undo restores the previous north star) with the drift baseline; get_alignment_drift and trigger_drift_correction use it.
When to use: once a project has a body of important memories, or after its purpose changed, to give drift measures a reference.
Example: {}
Advanced: {"project_id": "team-x", "rationale": "the team refocused on the payments migration"}`,
  annotations: WRITE,
  input,
  output,
  async handler(args, ctx) {
    const r = await ctx.services.autonomy.bootstrap(args.project_id, { actor: ctx.actor, rationale: args.rationale ?? null });
    const base = { kind: 'northStar:v1' as const, project_id: args.project_id };
    if (r.status === 'not_enough_memories')
      return {
        ...base,
        status: r.status,
        north_star_id: null,
        label: null,
        source: null,
        members: r.found,
        clusters: 0,
        terms: [],
        baseline: null,
        replaced: null,
        tx_id: null,
        reversal_hash: null,
        sample: [],
        needed: r.needed,
      };
    return {
      ...base,
      status: r.status,
      north_star_id: r.north_star_id,
      label: r.label,
      source: r.source,
      members: r.members,
      clusters: r.clusters,
      terms: r.terms,
      baseline: r.baseline,
      replaced: r.replaced,
      tx_id: r.tx_id,
      reversal_hash: r.reversal_hash,
      sample: r.sample,
      needed: null,
    };
  },
  render(r) {
    if (r.status === 'not_enough_memories') return `Not enough embedded memories in ${r.project_id} for a north star: ${r.members} of ${r.needed}.`;
    return `North star of ${r.project_id} set from the ${r.source} (${r.members} memories): ${r.terms.join(', ')}. Drift baseline ${r.baseline}. Node ${r.north_star_id}, transaction ${r.tx_id}${r.replaced ? `; replaced ${r.replaced}` : ''}.`;
  },
});
