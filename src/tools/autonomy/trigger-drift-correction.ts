import * as z from 'zod';
import { defineTool, WRITE } from '../kit/define.js';
import { rationaleField } from '../kit/fields.js';
import { workspaceProjectField } from '../workspace/shapes.js';

const input = z.strictObject({
  project_id: workspaceProjectField,
  strength: z.number().min(0.01, 'must be at least 0.01').max(0.5, 'must be at most 0.5').default(0.2).describe('Largest importance change of one memory, 0.01..0.5.'),
  force: z.boolean().default(false).describe('Correct even when drift is at level none.'),
  rationale: rationaleField.optional().describe('Recorded on the transaction; a reason naming the drift is written when omitted.'),
});

const output = z.object({
  kind: z.literal('driftCorrection:v1'),
  project_id: z.string(),
  status: z
    .enum(['corrected', 'nothing_to_change', 'no_north_star', 'skipped', 'accepted'])
    .describe('skipped: drift level none and no force; accepted: still running (follow job_id).'),
  job_id: z.string().nullable(),
  drift_level: z.enum(['none', 'low', 'medium', 'high']).nullable(),
  changed: z.number().int().describe('Memories whose importance moved.'),
  raised: z.number().int(),
  lowered: z.number().int(),
  tx_id: z.number().int().nullable().describe('The one transaction; undo reverts every change.'),
  reversal_hash: z.string().nullable(),
  weighted_alignment_before: z.number().nullable().describe('Importance-weighted alignment to the north star before.'),
  weighted_alignment_after: z.number().nullable(),
  reason: z.string(),
});

export const triggerDriftCorrectionTool = defineTool({
  name: 'trigger_drift_correction',
  title: 'Re-weight importance toward the north star',
  description: `Runs the drift-correction job with progress: every memory's importance moves by its alignment to the north star (z-score × strength/2, at most ±strength), so memories serving the goal gain attention and off-goal ones lose it. One transaction whose rationale names the drift; \`undo\` reverts it all. Skipped while drift is at level none unless force.
When to use: get_alignment_drift reports drift and the project's goal still stands.
Example: {}
Advanced: {"project_id": "team-x", "strength": 0.1, "force": true, "rationale": "refocus on the migration after the offsite"}`,
  annotations: WRITE,
  input,
  output,
  async handler(args, ctx) {
    const base = {
      kind: 'driftCorrection:v1' as const,
      project_id: args.project_id,
      job_id: null,
      changed: 0,
      raised: 0,
      lowered: 0,
      tx_id: null,
      reversal_hash: null,
      weighted_alignment_after: null,
    };
    const drift = await ctx.services.autonomy.drift(args.project_id);
    if (!drift)
      return { ...base, status: 'no_north_star' as const, drift_level: null, weighted_alignment_before: null, reason: 'no north star: run auto_bootstrap_north_star first' };
    if (drift.level === 'none' && !args.force)
      return {
        ...base,
        status: 'skipped' as const,
        drift_level: drift.level,
        weighted_alignment_before: drift.importance_weighted_alignment,
        reason: `drift ${drift.drift} is at level none; pass force to correct anyway`,
      };
    const { job, payload } = ctx.services.autonomy.driftCorrection({
      projectId: args.project_id,
      strength: args.strength,
      actor: ctx.actor,
      rationale: args.rationale ?? null,
      trigger: 'tool',
    });
    const r = await ctx.jobs.run(job, payload);
    if ('status' in r && r.status === 'accepted')
      return {
        ...base,
        status: 'accepted' as const,
        job_id: (r as { jobId: string }).jobId,
        drift_level: drift.level,
        weighted_alignment_before: drift.importance_weighted_alignment,
        reason: 'running in the background',
      };
    const done = r;
    return {
      ...base,
      status: done.status,
      drift_level: drift.level,
      changed: done.changed,
      raised: done.raised,
      lowered: done.lowered,
      tx_id: done.tx_id,
      reversal_hash: done.reversal_hash,
      weighted_alignment_before: done.weighted_alignment_before,
      weighted_alignment_after: done.weighted_alignment_after,
      reason: done.reason,
    };
  },
  render(r) {
    if (r.status === 'accepted') return `Drift correction continues in the background (job ${r.job_id}).`;
    if (r.status !== 'corrected') return `No correction for ${r.project_id} (${r.status}): ${r.reason}.`;
    return `Drift correction of ${r.project_id} (level ${r.drift_level}): importance of ${r.changed} memories moved (${r.raised} up, ${r.lowered} down) in transaction ${r.tx_id}; importance-weighted alignment ${r.weighted_alignment_before} → ${r.weighted_alignment_after}.\nReason: ${r.reason}`;
  },
});
