import * as z from 'zod';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { navNodeSchema, nodeLine } from '../navigation/shapes.js';
import { workspaceProjectField } from './shapes.js';

const input = z.strictObject({ project_id: workspaceProjectField });

const output = z.object({
  kind: z.literal('egoState:v1'),
  project_id: z.string(),
  memories: z.number().int(),
  goals: z
    .array(navNodeSchema.extend({ importance: z.number(), source: z.enum(['north_star', 'tagged']) }))
    .describe('The north star (auto_bootstrap_north_star) and memories tagged goal, pinned or manifest.'),
  dominant_topics: z
    .array(z.object({ name: z.string(), weight: z.number().describe('Σ importance of its memories.'), memories: z.number().int() }))
    .describe('Topics and tags by importance-weighted count.'),
  dominant_terms: z.array(z.object({ term: z.string(), weight: z.number() })).describe('Words by importance-weighted document count.'),
  identity: z.object({
    continuity: z
      .number()
      .nullable()
      .describe('Cosine of the purpose vector (importance-weighted mean E1 vector) now and at the snapshot before the last change; null before a second snapshot.'),
    continuity_since_first: z.number().nullable().describe('The same against the first snapshot.'),
    status: z.enum(['healthy', 'warning', 'degraded', 'critical']).nullable().describe('continuity > 0.9, ≥ 0.7, ≥ 0.5, else critical.'),
    previous_snapshot_at: z.string().nullable(),
    first_snapshot_at: z.string().nullable(),
    snapshots_compared_memories: z.number().int().nullable(),
  }),
});

export const getEgoStateTool = defineTool({
  name: 'get_ego_state',
  title: "The store's self-model",
  description: `The project's self-model: its goals (north star, memories tagged goal/pinned/manifest), what it is mostly about (importance-weighted topics, tags and words) and its identity continuity: how similar its purpose vector is now to before the last change and to the first snapshot. Each read after a write records a snapshot.
When to use: to check what the store is for and whether recent writes changed what it is about.
Example: {}
Advanced: {"project_id": "team-x", "format": "json"}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    return { kind: 'egoState:v1' as const, ...(await ctx.services.ego.ego(args.project_id)) };
  },
  render(r) {
    const id = r.identity;
    const goals = r.goals.length ? r.goals.map((g) => `- ${nodeLine(g)} (${g.source})`).join('\n') : '- none';
    return `Ego of ${r.project_id} (${r.memories} memories). Identity continuity ${id.continuity ?? 'n/a'}${id.status ? ` (${id.status})` : ''}, since first ${id.continuity_since_first ?? 'n/a'}.\nGoals:\n${goals}\nTopics: ${r.dominant_topics.map((t) => `${t.name} ${t.weight}`).join(', ') || 'none'}\nTerms: ${r.dominant_terms.map((t) => t.term).join(', ')}`;
  },
});
