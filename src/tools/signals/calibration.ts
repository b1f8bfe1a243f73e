import * as z from 'zod';
import { recalibrationJob } from '../../services/signals/recalibration.js';
import { defineTool, READ_ONLY, WRITE } from '../kit/define.js';
import { rationale } from '../kit/fields.js';

const thresholdSchema = z.object({
  name: z.string(),
  value: z.number(),
  default: z.number(),
  range: z.object({ min: z.number(), max: z.number() }),
  calibrated: z.boolean(),
  calibrated_at: z.string().nullable(),
  observations: z.number().int().describe('Outcomes available to calibrate it.'),
  fitted_value: z.number().nullable().describe('Where the last fit put it; the value moves there at the acetylcholine rate.'),
  used_by: z.string(),
  source: z.string(),
});

export const getThresholdStatusTool = defineTool({
  name: 'get_threshold_status',
  title: 'Thresholds and how they were set',
  description: `Each threshold the server applies, its value, default and bounds, whether feedback has calibrated it and from how many observations. The search score threshold (used when a search gives none) is calibrated from relevance feedback (record_feedback) by trigger_recalibration; thresholds without an outcome source say so.
When to use: to see why search drops hits, or whether feedback has changed it.
Example: {}
Advanced: {"format": "json"}`,
  annotations: READ_ONLY,
  input: z.strictObject({}),
  output: z.object({ kind: z.literal('thresholdStatus:v1'), thresholds: z.array(thresholdSchema) }),
  async handler(_args, ctx) {
    return { kind: 'thresholdStatus:v1' as const, thresholds: await ctx.services.signals.thresholds() };
  },
  render: (r) =>
    r.thresholds
      .map(
        (t) =>
          `- **${t.name}** ${t.value.toFixed(3)} (default ${t.default}; ${t.calibrated ? `calibrated ${t.calibrated_at} from ${t.observations} observations` : 'not calibrated'}) — ${t.used_by}; ${t.source}`,
      )
      .join('\n'),
});

const metrics = z.object({ ece: z.number().nullable(), mce: z.number().nullable(), brier: z.number().nullable() });

export const getCalibrationMetricsTool = defineTool({
  name: 'get_calibration_metrics',
  title: 'How well search scores predict relevance',
  description: `ECE (expected calibration error, 10 bins), MCE (largest bin gap) and Brier score of search scores as probabilities of relevance, over the relevance feedback recorded on shown hits: raw (the score itself) and calibrated (the score through the map the last recalibration fitted), with the bins.
When to use: to judge whether a search score of 0.6 means "60 % likely relevant", and whether recalibration helped.
Example: {}
Advanced: {"format": "json"}`,
  annotations: READ_ONLY,
  input: z.strictObject({}),
  output: z.object({
    kind: z.literal('calibrationMetrics:v1'),
    observations: z.number().int(),
    needed: z.number().int().describe('Observations a recalibration needs.'),
    relevant: z.number().int(),
    map: z.object({ a: z.number(), b: z.number() }).describe('P(relevant) = σ(a·logit(score) + b); identity (1, 0) before a recalibration.'),
    raw: metrics,
    calibrated: metrics.extend({ bins: z.array(z.object({ from: z.number(), to: z.number(), count: z.number().int(), confidence: z.number(), accuracy: z.number() })) }),
    status: z
      .enum(['no_observations', 'excellent', 'good', 'acceptable', 'poor', 'critical'])
      .describe('By calibrated ECE: < 0.05 excellent, < 0.10 good, < 0.15 acceptable, < 0.25 poor.'),
    recalibrated_at: z.string().nullable(),
    score_threshold: z.number(),
    relevance_at_threshold: z.number().describe('Calibrated P(relevant) of a hit scoring exactly the threshold.'),
  }),
  async handler(_args, ctx) {
    return { kind: 'calibrationMetrics:v1' as const, ...(await ctx.services.signals.calibration()) };
  },
  render: (r) => {
    const f = (x: number | null) => (x === null ? '—' : x.toFixed(3));
    return `${r.observations} observations (${r.relevant} relevant). Raw: ECE ${f(r.raw.ece)}, MCE ${f(r.raw.mce)}, Brier ${f(r.raw.brier)}. Calibrated: ECE ${f(r.calibrated.ece)}, MCE ${f(r.calibrated.mce)}, Brier ${f(r.calibrated.brier)} (${r.status}). Score threshold ${r.score_threshold.toFixed(3)}.`;
  },
});

export const triggerRecalibrationTool = defineTool({
  name: 'trigger_recalibration',
  title: 'Recalibrate thresholds from feedback',
  description: `A job: fits the score → relevance map (Platt scaling) to the relevance feedback recorded on shown hits, and moves the search score threshold towards the score the map calls 50 % relevant, by the acetylcholine learning rate. Needs at least 10 observations (otherwise nothing changes and it says so). Before/after go to the adjustment log (get_steering_feedback); undo restores the previous map and threshold.
When to use: after recording feedback with record_feedback, so the default search threshold follows what you found relevant.
Example: {}
Advanced: {"rationale": "a week of feedback on the support project", "format": "json"}`,
  annotations: WRITE,
  input: z.strictObject({ rationale: rationale('Why, 10–1,000 characters; recorded in the adjustment log.').optional() }),
  output: z.object({
    kind: z.literal('recalibration:v1'),
    status: z.enum(['recalibrated', 'insufficient_observations', 'accepted']).describe('accepted: still running in the background (follow it by job_id).'),
    job_id: z.string().nullable(),
    observations: z.number().int().nullable(),
    needed: z.number().int().nullable(),
    threshold_before: z.number().nullable(),
    threshold_after: z.number().nullable(),
    fitted_threshold: z.number().nullable(),
    rate: z.number().nullable().describe('Share of the way to the fitted value the threshold moved (acetylcholine).'),
    before: metrics.nullable(),
    after: metrics.nullable(),
  }),
  async handler(args, ctx) {
    const r = await ctx.jobs.run(recalibrationJob, { actor: ctx.actor, rationale: args.rationale ?? null });
    if ('status' in r && r.status === 'accepted') {
      const none = { observations: null, needed: null, threshold_before: null, threshold_after: null, fitted_threshold: null, rate: null, before: null, after: null };
      return { kind: 'recalibration:v1' as const, status: 'accepted' as const, job_id: (r as { jobId: string }).jobId, ...none };
    }
    await ctx.services.signals.refresh();
    return { kind: 'recalibration:v1' as const, job_id: null, ...r };
  },
  render: (r) => {
    if (r.status === 'accepted') return `Recalibration continues in the background (job ${r.job_id}).`;
    if (r.status === 'insufficient_observations') return `Not recalibrated: ${r.observations} feedback observations, ${r.needed} needed. Record more with record_feedback.`;
    const f = (x: number | null | undefined) => (x === null || x === undefined ? '—' : x.toFixed(3));
    return `Recalibrated from ${r.observations} observations: score threshold ${f(r.threshold_before)} → ${f(r.threshold_after)} (fitted ${f(r.fitted_threshold)}, rate ${f(r.rate)}); ECE ${f(r.before?.ece)} → ${f(r.after?.ece)}, Brier ${f(r.before?.brier)} → ${f(r.after?.brier)}.`;
  },
});
