import * as z from 'zod';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { workspaceProjectField } from '../workspace/shapes.js';

const input = z.strictObject({ project_id: workspaceProjectField });

export const driftSchema = z.object({
  north_star: z.object({ id: z.string(), label: z.string(), source: z.string(), created_at: z.string(), baseline: z.number() }),
  memories: z.number().int(),
  ewma: z.number().describe('EWMA (span 20) of the cosine of each memory to the north star, in creation order, at the newest memory.'),
  drift: z.number().describe('baseline − ewma: how far new memories moved from the goal.'),
  level: z.enum(['none', 'low', 'medium', 'high']).describe('drift < 0.05, < 0.1, < 0.2, else high.'),
  trend: z.number().describe('Slope of the EWMA over the last 20 memories (per memory); negative = moving away.'),
  mean_alignment: z.number(),
  importance_weighted_alignment: z.number().describe('Σ importance·alignment / Σ importance: trigger_drift_correction raises it.'),
  recent: z.array(z.object({ id: z.string(), alignment: z.number(), ewma: z.number() })).describe('The 10 newest memories, newest first.'),
});

const output = z.object({
  kind: z.literal('alignmentDrift:v1'),
  project_id: z.string(),
  drift: driftSchema.nullable(),
  reason: z.string().nullable().describe('Why drift is null.'),
});

export const getAlignmentDriftTool = defineTool({
  name: 'get_alignment_drift',
  title: 'How far new memories drift from the north star',
  description: `Alignment of the project's memories to its north star: the EWMA of their cosine to the goal vector in creation order, its drift below the baseline, a level and a trend, and the importance-weighted alignment drift correction acts on.
When to use: to check whether what is being stored lately still serves the project's goal.
Example: {}
Advanced: {"project_id": "team-x", "format": "json"}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    const drift = await ctx.services.autonomy.drift(args.project_id);
    return { kind: 'alignmentDrift:v1' as const, project_id: args.project_id, drift, reason: drift ? null : 'no north star: run auto_bootstrap_north_star first' };
  },
  render(r) {
    if (!r.drift) return `No drift for ${r.project_id}: ${r.reason}.`;
    const d = r.drift;
    return `Drift of ${r.project_id} from "${d.north_star.label}": ${d.level} (EWMA ${d.ewma} vs baseline ${d.north_star.baseline}, drift ${d.drift}, trend ${d.trend}); importance-weighted alignment ${d.importance_weighted_alignment} over ${d.memories} memories.`;
  },
});
