import * as z from 'zod';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { inlineText } from '../kit/markdown.js';
import { projectIdField } from '../kit/fields.js';
import { liveCatalog } from './live-catalog.js';

export const goalField = z
  .string()
  .trim()
  .min(10, 'must be at least 10 characters')
  .max(1_000, 'must be at most 1,000 characters')
  .describe('What you are trying to achieve, 10–1,000 characters.');

const input = z.strictObject({
  goal: goalField,
  project_id: projectIdField.optional().describe('Plan over this project only (default: the whole store).'),
});

const output = z.object({
  kind: z.literal('reflection:v1'),
  goal: z.string(),
  steps: z.array(
    z.object({
      order: z.number().int(),
      tool: z.string(),
      toolset: z.string(),
      enabled: z.boolean().describe('false: switch its toolset on first with `toolsets {"enable": [toolset]}`.'),
      phase: z.enum(['orient', 'repair', 'structure', 'act']),
      why: z.string().describe('The stored fact or registry match that put this step here.'),
      args: z.record(z.string(), z.unknown()).describe('Suggested arguments, taken from the store where the step is state-driven.'),
    }),
  ),
  store_state: z.object({
    memories: z.number().int(),
    entities: z.number().int(),
    live_edges: z.number().int(),
    duplicate_groups: z.number().int().describe('Groups of live memories with the same content hash.'),
    matching_tombstones: z.number().int().describe('Restorable deleted memories that share a word with the goal.'),
    goal_matches: z.number().int().describe('Live memories the goal finds with search (default threshold).'),
  }),
  relevance: z
    .array(z.object({ tool: z.string(), score: z.number(), matched: z.array(z.string()) }))
    .describe('Tools whose descriptions best match the goal (TF-IDF over the live registry).'),
});

export const reflectOnMemoryTool = defineTool({
  name: 'reflect_on_memory',
  title: 'Plan tool use for a goal',
  description: `An ordered tool sequence for a goal, chosen from the live tool registry and the state of the store: it searches first (or stores, when the store is empty), then repairs what the store shows (restore_from_hash for deleted memories that match the goal, merge_concepts for duplicate groups, critique_context when the goal's matches are stale, build_edges when there are no edges), then the tools whose descriptions match the goal best. Each step says why and suggests arguments; a step whose toolset is off says so.
When to use: before a multi-step memory task, to see which tools apply and what the store needs first.
Example: {"goal": "find out why the checkout deploy failed last week"}
Advanced: {"goal": "clean up duplicated notes about the billing service", "project_id": "payments", "format": "json"}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    const r = await ctx.services.metacognition.reflect({ goal: args.goal, projectId: args.project_id ?? null, catalog: liveCatalog(ctx) });
    return {
      kind: 'reflection:v1' as const,
      goal: args.goal,
      steps: r.steps,
      store_state: {
        memories: r.state.shape.memories,
        entities: r.state.shape.entities,
        live_edges: r.state.shape.liveEdges,
        duplicate_groups: r.state.shape.duplicateGroups.length,
        matching_tombstones: r.state.tombstones.length,
        goal_matches: r.state.goalHits.length,
      },
      relevance: r.relevance,
    };
  },
  render(r) {
    const s = r.store_state;
    const steps = r.steps.map(
      (x) =>
        `${x.order}. \`${x.tool}\` (${x.toolset}${x.enabled ? '' : ', switch on first'}, ${x.phase}) — ${inlineText(x.why, 300)}${Object.keys(x.args).length ? `\n   args: \`${inlineText(JSON.stringify(x.args), 300)}\`` : ''}`,
    );
    return [
      `Plan for "${inlineText(r.goal)}" over ${s.memories} memories, ${s.live_edges} edges, ${s.duplicate_groups} duplicate group(s), ${s.matching_tombstones} matching tombstone(s), ${s.goal_matches} match(es):`,
      ...steps,
    ].join('\n');
  },
});
