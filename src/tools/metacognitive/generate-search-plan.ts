import * as z from 'zod';
import { PLAN_SPACE_NAMES } from '../../services/metacognition/search-plan.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { projectIdField } from '../kit/fields.js';
import { inlineText } from '../kit/markdown.js';
import { goalField } from './reflect-on-memory.js';

const spaceField = z.enum(PLAN_SPACE_NAMES);

const input = z.strictObject({
  goal: goalField,
  focus_spaces: z.array(spaceField).max(5).optional().describe('Space families to aim at first: semantic, causal, code, temporal, entity.'),
  project_id: projectIdField.optional().describe("Build from this project's vocabulary only (default: the whole store)."),
});

const output = z.object({
  kind: z.literal('search_plan:v1'),
  goal: z.string(),
  queries: z.array(
    z.object({
      query: z.string(),
      target_space: spaceField,
      space_ids: z.array(z.string()).describe('The embedding spaces of that family (E1 … E13).'),
      profile: z.string().describe('The search_graph profile that weighs those spaces.'),
      why: z.string(),
      evidence: z.object({ memories: z.number().int(), terms: z.array(z.string()) }),
    }),
  ),
  related_memories: z.number().int().describe("Memories sharing the goal's words that the queries were built from."),
  vocabulary_sample: z.number().int().describe('Recent memories the word statistics (IDF) came from.'),
});

export const generateSearchPlanTool = defineTool({
  name: 'generate_search_plan',
  title: 'Three queries for a goal',
  description: `Three search queries for a goal, each aimed at a different space family (semantic, causal, code, temporal, entity), built from the store's own vocabulary: words that co-occur with the goal's words in stored memories (ranked by frequency × IDF), entity names, identifiers, causal clauses and dates found there. Each query names its target spaces, the search_graph profile to run it with, why, and the evidence. focus_spaces come first; the rest in order of stored evidence.
When to use: a first search missed, or a goal needs evidence from several angles (what, why, who, when).
Example: {"goal": "why did the checkout deploy fail"}
Advanced: {"goal": "billing service incidents in November", "focus_spaces": ["temporal", "entity"], "project_id": "payments"}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    const r = await ctx.services.metacognition.searchPlan({ goal: args.goal, focus: args.focus_spaces ?? [], projectId: args.project_id ?? null });
    return { kind: 'search_plan:v1' as const, goal: args.goal, queries: r.queries, related_memories: r.related, vocabulary_sample: r.sample };
  },
  render(r) {
    const lines = r.queries.map(
      (q, i) => `${i + 1}. **${q.target_space}** (${q.space_ids.join(', ')}, profile \`${q.profile}\`): \`${inlineText(q.query)}\` — ${inlineText(q.why, 300)}`,
    );
    return [`Search plan for "${inlineText(r.goal)}" from ${r.related_memories} related memories:`, ...lines].join('\n');
  },
});
