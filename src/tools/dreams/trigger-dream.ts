import * as z from 'zod';
import { DEFAULT_BUDGET } from '../../services/dreams/dreams.js';
import { DREAM_PHASES } from '../../services/dreams/job.js';
import { defineTool, WRITE } from '../kit/define.js';
import { projectIdField } from '../kit/fields.js';
import { aliased } from '../kit/aliases.js';
import { budgetField, minSimilarityField, renderRun, runSchema, sampledSummaries } from './shapes.js';

const input = z.strictObject({
  phase: z.enum(DREAM_PHASES).default('full').describe('nrem (replay, Hebbian strengthening, consolidation, decay), rem (amortized shortcuts), or full (nrem then rem).'),
  project_id: aliased(projectIdField.default('default').describe('The project to dream over.'), 'project'),
  budget: budgetField.optional(),
  window_hours: z.number().min(0.01).max(8_760).default(168).describe('Retrievals and memories of the last this many hours are the evidence (default a week).'),
  min_co_retrievals: z.number().int().min(1).max(100).default(2).describe('Retrievals that must return a pair together before a dream adds an edge between them.'),
  max_hops: z.number().int().min(2).max(6).default(3).describe('Longest path a shortcut may replace; pairs farther apart (or unconnected) get a Hebbian association instead.'),
  min_similarity: minSimilarityField,
  unused_days: z.number().min(0).max(3_650).default(30).describe('Automatic edges unused this long decay (half their weight per 90 idle days, floor 0.05).'),
});

export const triggerDreamTool = defineTool({
  name: 'trigger_dream',
  title: 'Dream: consolidate what recent use taught',
  description: `Runs a dream over one project as a job, streaming each phase's progress. NREM replays recent memories, highest learning magnitude L first: edges between memories that recent searches returned together (the retrieval log's first five hits) get stronger by a Hebbian rule (w ← w + 0.5·s_a·s_b·(1 − w) per co-retrieval, s = the hits' scores), pairs with no path between them get a Semantic "co_retrieved" edge, near-duplicate clusters get a summary node with "summarizes" provenance edges (written by the client's model through MCP sampling when offered, extractive otherwise), and automatic edges unused for unused_days decay. REM walks the graph for pairs recent queries reached together that only a path of 2..max_hops hops joins, and adds a Shortcut edge with the path it replaces and a confidence (noisy-OR of the co-retrievals). Each phase is one transaction (undo {tx_id} reverts it); abort_dream rolls back the phase in progress. Answers when done, or "accepted" with the dream id if it outlasts the wait.
When to use: after a working session, so what was used together is found together next time; or before reviewing get_amortized_shortcuts.
Example: {"phase": "full"}
Advanced: {"phase": "rem", "project_id": "support", "budget": {"max_operations": 2000, "max_ms": 30000}, "window_hours": 24, "min_co_retrievals": 3, "max_hops": 4}`,
  annotations: WRITE,
  input,
  output: runSchema.extend({ kind: z.literal('dream:v1') }),
  async handler(args, ctx) {
    const budget = args.budget ?? DEFAULT_BUDGET;
    const sampled =
      ctx.sampling && args.phase !== 'rem'
        ? await sampledSummaries(
            ctx,
            await ctx.services.dreams.clustersToSample({ mode: 'nrem', projectId: args.project_id, minSimilarity: args.min_similarity, windowHours: args.window_hours, budget }),
          )
        : {};
    const { job, payload } = await ctx.services.dreams.prepareDream(args.phase, {
      projectId: args.project_id,
      budget,
      windowHours: args.window_hours,
      minCoRetrievals: args.min_co_retrievals,
      maxHops: args.max_hops,
      minSimilarity: args.min_similarity,
      unusedDays: args.unused_days,
      sampled,
      actor: ctx.actor,
    });
    // The queue's own id (on BullMQ a number, the dream id only dedupes): knowledge://jobs/{job_id} reads it.
    let jobId = payload.dream_id;
    const r = await ctx.jobs.run(job, payload, { jobId: payload.dream_id, onEnqueued: (id) => (jobId = id) });
    const base = { kind: 'dream:v1' as const, dream_id: payload.dream_id, job_id: jobId, project_id: args.project_id, sampled_summaries: Object.keys(sampled).length };
    if ('status' in r && r.status === 'accepted') return { ...base, status: 'accepted' as const, phase: args.phase, phases: [], aborted_in: null };
    return { ...base, status: r.status, phase: r.phase, phases: r.phases, aborted_in: r.aborted_in };
  },
  render: (r) => renderRun('dream', r),
});
