import * as z from 'zod';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { navNodeSchema } from '../navigation/shapes.js';
import { workspaceProjectField } from '../workspace/shapes.js';

const input = z.strictObject({
  project_id: workspaceProjectField,
  k: z.number().int().min(2, 'must be at least 2').max(20, 'must be at most 20').optional().describe('Clusters to form, 2..20; ⌈√(n/2)⌉ within [2, 10] when omitted.'),
  max_goals: z.number().int().min(1).max(20).default(10).describe('How many candidates to list, 1..20.'),
});

const output = z.object({
  kind: z.literal('subGoals:v1'),
  project_id: z.string(),
  memories: z.number().int().describe('Embedded memories considered (the 500 most important are clustered).'),
  k: z.number().int(),
  goals: z.array(
    z.object({
      rank: z.number().int(),
      label: z.string().describe('Its most distinctive words.'),
      terms: z.array(z.string()),
      size: z.number().int(),
      importance_mass: z.number().describe('Σ importance of its memories (the rank order).'),
      share: z.number(),
      coherence: z.number().describe('Mean cosine of its memories to its centroid.'),
      alignment_to_north_star: z.number().nullable(),
      examples: z.array(navNodeSchema),
    }),
  ),
});

export const discoverSubGoalsTool = defineTool({
  name: 'discover_sub_goals',
  title: 'Candidate sub-goals: clusters of important memories',
  description: `Clusters the project's most important memories on their E1 vectors (k-means) and lists each cluster as a candidate sub-goal: a label from its distinctive words, size, total importance, coherence, alignment to the north star and example memories. Changes nothing.
When to use: to see which themes the store's important memories form, e.g. before setting goals or after an import.
Example: {}
Advanced: {"project_id": "team-x", "k": 6, "max_goals": 3}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    return { kind: 'subGoals:v1' as const, project_id: args.project_id, ...(await ctx.services.autonomy.subGoals(args.project_id, args.k ?? null, args.max_goals)) };
  },
  render(r) {
    if (r.goals.length === 0) return `Too few embedded memories in ${r.project_id} to cluster (${r.memories}).`;
    return [
      `${r.goals.length} candidate sub-goals of ${r.project_id} (k = ${r.k}, ${r.memories} memories):`,
      ...r.goals.map(
        (g) =>
          `${g.rank}. ${g.label} — ${g.size} memories, importance ${g.importance_mass}, coherence ${g.coherence}${g.alignment_to_north_star !== null ? `, alignment ${g.alignment_to_north_star}` : ''}`,
      ),
    ].join('\n');
  },
});
