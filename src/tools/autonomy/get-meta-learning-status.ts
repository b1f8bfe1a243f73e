import * as z from 'zod';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { workspaceProjectField } from '../workspace/shapes.js';

const input = z.strictObject({ project_id: workspaceProjectField });

const output = z.object({
  kind: z.literal('metaLearningStatus:v1'),
  project_id: z.string(),
  observations: z.number().int().describe('Fingerprinted live memories (L known) observed.'),
  retrievals: z.number().int().describe('Their accesses since they were written (store, search, query, hydrate).'),
  spearman: z.number().nullable().describe('Rank correlation of L at write time with later retrievals.'),
  pearson_log: z.number().nullable().describe('Pearson correlation of L with log(1 + retrievals).'),
  prediction_accuracy: z.number().nullable().describe('(ρ + 1) / 2: 1 = L ranked memories exactly as they were later retrieved, 0.5 = chance.'),
  reason: z.string().nullable().describe('Why the correlations are null.'),
  top_quartile_retrievals: z.number().nullable().describe('Mean retrievals of the quarter of memories with the highest L.'),
  bottom_quartile_retrievals: z.number().nullable(),
  lambda: z.object({
    lambda_s: z.number(),
    lambda_c: z.number(),
    source: z.enum(['fitted', 'lifecycle']).describe('fitted: set by trigger_lambda_recalibration; lifecycle: the stage default.'),
    stage: z.string(),
  }),
  last_recalibration: z.object({ at: z.string(), details: z.record(z.string(), z.unknown()) }).nullable(),
});

export const getMetaLearningStatusTool = defineTool({
  name: 'get_meta_learning_status',
  title: 'How well UTL predicted retrieval',
  description: `Meta-UTL: how well each memory's learning magnitude L (computed when it was written) predicted how often it was retrieved afterwards (Spearman and log-Pearson correlation, top vs bottom quartile), the λ weights in effect and the last recalibration.
When to use: to judge whether L deserves its weight in search_graph, and whether trigger_lambda_recalibration is due.
Example: {}
Advanced: {"project_id": "team-x", "format": "json"}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    return { kind: 'metaLearningStatus:v1' as const, ...(await ctx.services.metaUtl.status(args.project_id)) };
  },
  render(r) {
    return `Meta-UTL of ${r.project_id}: ${r.observations} memories, ${r.retrievals} retrievals; Spearman(L, retrievals) ${r.spearman ?? `n/a (${r.reason})`}, accuracy ${r.prediction_accuracy ?? 'n/a'}; top/bottom quartile ${r.top_quartile_retrievals ?? 'n/a'}/${r.bottom_quartile_retrievals ?? 'n/a'}. λ_S ${r.lambda.lambda_s}, λ_C ${r.lambda.lambda_c} (${r.lambda.source}, ${r.lambda.stage}).`;
  },
});
