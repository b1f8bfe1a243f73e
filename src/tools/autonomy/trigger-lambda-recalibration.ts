import * as z from 'zod';
import { lambdaRecalibrationResult } from '../../services/cognition/meta-utl-job.js';
import { defineTool, IDEMPOTENT_WRITE } from '../kit/define.js';
import { workspaceProjectField } from '../workspace/shapes.js';

const input = z.strictObject({ project_id: workspaceProjectField });

const output = lambdaRecalibrationResult.extend({
  kind: z.literal('lambdaRecalibration:v1'),
  project_id: z.string(),
  status: z.enum(['recalibrated', 'insufficient_data', 'accepted']).describe('accepted: still running (follow job_id).'),
  job_id: z.string().nullable(),
});

export const triggerLambdaRecalibrationTool = defineTool({
  name: 'trigger_lambda_recalibration',
  title: 'Refit the UTL λ weights from observed retrievals',
  description: `Runs the λ-recalibration job with progress: over the project's fingerprinted memories it tries λ_S = 0.05…0.95 (λ_C = 1 − λ_S) and keeps the one whose L = ΔS^λS · ΔC^λC ranks memories most like their later retrievals (Spearman). The stored L values are recomputed, new fingerprints use the refit λ, and the meta-learning log records before and after; undo {tx_id} puts both back.
When to use: get_meta_learning_status shows L predicting retrieval poorly, after the project has been used for a while.
Example: {}
Advanced: {"project_id": "team-x", "format": "json"}`,
  annotations: IDEMPOTENT_WRITE,
  input,
  output,
  async handler(args, ctx) {
    const { job, payload } = ctx.services.metaUtl.recalibration(args.project_id, ctx.actor);
    const r = await ctx.jobs.run(job, payload);
    if ('status' in r && r.status === 'accepted') {
      const lambda = (await ctx.services.metaUtl.status(args.project_id)).lambda;
      return {
        kind: 'lambdaRecalibration:v1' as const,
        project_id: args.project_id,
        status: 'accepted' as const,
        job_id: (r as { jobId: string }).jobId,
        observations: 0,
        before: { lambda_s: lambda.lambda_s, lambda_c: lambda.lambda_c, source: lambda.source, correlation: null },
        after: null,
        grid: [],
        rewritten: 0,
        tx_id: null,
        reason: 'running in the background',
      };
    }
    return { kind: 'lambdaRecalibration:v1' as const, project_id: args.project_id, job_id: null, ...r };
  },
  render(r) {
    if (r.status === 'accepted') return `λ recalibration continues in the background (job ${r.job_id}).`;
    if (r.status === 'insufficient_data') return `λ of ${r.project_id} unchanged: ${r.reason}.`;
    return `λ of ${r.project_id} recalibrated over ${r.observations} memories: λ_S ${r.before.lambda_s} → ${r.after!.lambda_s}, Spearman ${r.before.correlation ?? 'n/a'} → ${r.after!.correlation}; ${r.rewritten} fingerprints recomputed.`;
  },
});
