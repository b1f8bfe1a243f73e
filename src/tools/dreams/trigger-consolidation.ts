import * as z from 'zod';
import { DEFAULT_BUDGET } from '../../services/dreams/dreams.js';
import { defineTool, WRITE } from '../kit/define.js';
import { projectIdField } from '../kit/fields.js';
import { aliased } from '../kit/aliases.js';
import { budgetField, minSimilarityField, renderRun, runSchema, sampledSummaries } from './shapes.js';

const input = z.strictObject({
  project_id: aliased(projectIdField.describe('The project to consolidate.'), 'project'),
  budget: budgetField.optional(),
  min_similarity: minSimilarityField,
});

export const triggerConsolidationTool = defineTool({
  name: 'trigger_consolidation',
  title: 'Consolidate near-duplicate memories of a project',
  description: `A job over every memory of one project (oldest first, as far as the budget goes): near-duplicates (E1 cosine ≥ min_similarity, joined into clusters) get one summary node of kind summary with Relational "summarizes" provenance edges to each member; the members stay (get_pruning_candidates then ranks them as redundant). The client's model writes each summary through MCP sampling when the client offers it; otherwise cited sentences are chosen extractively. Clusters a summary already covers are skipped, so running it twice adds nothing. One transaction (undo {tx_id} reverts it), progress streamed, abort_dream stops it.
When to use: after importing or writing many overlapping notes, to condense them before pruning.
Example: {"project_id": "default"}
Advanced: {"project_id": "support", "min_similarity": 0.95, "budget": {"max_operations": 20000, "max_ms": 60000}}`,
  annotations: WRITE,
  input,
  output: runSchema.extend({ kind: z.literal('consolidation:v1') }),
  async handler(args, ctx) {
    const budget = args.budget ?? DEFAULT_BUDGET;
    const sampled = ctx.sampling
      ? await sampledSummaries(
          ctx,
          await ctx.services.dreams.clustersToSample({ mode: 'consolidation', projectId: args.project_id, minSimilarity: args.min_similarity, windowHours: 0, budget }),
        )
      : {};
    const { job, payload } = await ctx.services.dreams.prepareConsolidation({ projectId: args.project_id, budget, minSimilarity: args.min_similarity, sampled, actor: ctx.actor });
    // The queue's own id (on BullMQ a number, the dream id only dedupes): knowledge://jobs/{job_id} reads it.
    let jobId = payload.dream_id;
    const r = await ctx.jobs.run(job, payload, { jobId: payload.dream_id, onEnqueued: (id) => (jobId = id) });
    const base = {
      kind: 'consolidation:v1' as const,
      dream_id: payload.dream_id,
      job_id: jobId,
      project_id: args.project_id,
      sampled_summaries: Object.keys(sampled).length,
    };
    if ('status' in r && r.status === 'accepted') return { ...base, status: 'accepted' as const, phase: 'consolidation', phases: [], aborted_in: null };
    return { ...base, status: r.status, phase: r.phase, phases: r.phases, aborted_in: r.aborted_in };
  },
  render: (r) => renderRun('consolidation', r),
});
