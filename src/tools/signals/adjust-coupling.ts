import * as z from 'zod';
import { kuramotoSyncJob } from '../../services/signals/sync-job.js';
import { KURAMOTO } from '../../services/signals/kuramoto.js';
import { defineTool, WRITE } from '../kit/define.js';
import { rationale } from '../kit/fields.js';

const output = z.object({
  kind: z.literal('couplingAdjusted:v1'),
  status: z.enum(['done', 'accepted']).describe('accepted: the sync step still runs in the background (follow it by job_id).'),
  job_id: z.string().nullable(),
  previous_coupling: z.number(),
  coupling: z.number(),
  r_before: z.number().nullable(),
  r_after: z.number().nullable().describe('Order parameter after the sync step that followed (when done).'),
  retrievals_stepped: z.number().int().nullable(),
  gain: z.number().nullable().describe('How far each retrieval moved the phases: 2 × dopamine (1 at baseline).'),
  changed: z.array(z.object({ signal: z.string(), before: z.number().nullable(), after: z.number() })).describe('Sync factors (fusion weight scale) the step changed.'),
});

export const adjustCouplingTool = defineTool({
  name: 'adjust_coupling',
  title: 'Set the Kuramoto coupling',
  description: `Set the coupling K (${KURAMOTO.minCoupling}–${KURAMOTO.maxCoupling}) with which the fused ranking pulls the embedding spaces into sync, then run a sync step over the retrievals logged since the last one (a job, with progress). Higher K tolerates more disagreement before a space is down-weighted; lower K lets disagreeing spaces drift out of fusion sooner. Logged with before/after and your rationale (get_steering_feedback lists it), as one transaction: undo puts the coupling and the phases back.
When to use: search leans too hard on one space, or ignores one that disagrees for good reasons.
Example: {"coupling": 2, "rationale": "keep the keyword space in fusion for code questions"}
Advanced: {"coupling": 0.3, "rationale": "let spaces that disagree with the consensus fall away quickly", "format": "json"}`,
  annotations: WRITE,
  input: z.strictObject({
    coupling: z
      .number()
      .min(KURAMOTO.minCoupling, `must be at least ${KURAMOTO.minCoupling}`)
      .max(KURAMOTO.maxCoupling, `must be at most ${KURAMOTO.maxCoupling}`)
      .describe('New K.'),
    rationale: rationale('Why, 10–1,000 characters; recorded in the adjustment log.'),
  }),
  output,
  async handler(args, ctx) {
    const before = await ctx.services.signals.kuramoto();
    const r = await ctx.jobs.run(kuramotoSyncJob, { actor: ctx.actor, coupling: args.coupling, rationale: args.rationale });
    const common = { kind: 'couplingAdjusted:v1' as const, previous_coupling: before.coupling, coupling: args.coupling, r_before: before.r };
    if ('status' in r && r.status === 'accepted')
      return { ...common, status: 'accepted' as const, job_id: r.jobId, r_after: null, retrievals_stepped: null, gain: null, changed: [] };
    const done = r as z.output<typeof kuramotoSyncJob.result>;
    await ctx.services.signals.refresh();
    return { ...common, status: 'done' as const, job_id: null, r_after: done.r, retrievals_stepped: done.retrievals, gain: done.gain, changed: done.changed };
  },
  render(r) {
    const head = `Coupling K ${r.previous_coupling} → ${r.coupling}.`;
    if (r.status === 'accepted') return `${head} The sync step continues in the background (job ${r.job_id}).`;
    return `${head} Sync step over ${r.retrievals_stepped} retrievals: r ${r.r_before === null ? '—' : r.r_before.toFixed(3)} → ${r.r_after === null ? '—' : r.r_after.toFixed(3)}.${
      r.changed.length ? `\n${r.changed.map((c) => `- ${c.signal}: weight factor ${c.before === null ? 'new' : c.before.toFixed(3)} → ${c.after.toFixed(3)}`).join('\n')}` : ''
    }`;
  },
});
