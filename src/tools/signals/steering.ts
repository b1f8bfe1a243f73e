import * as z from 'zod';
import { defineTool, READ_ONLY, WRITE } from '../kit/define.js';
import { nodeIdField } from '../kit/fields.js';

export const recordFeedbackTool = defineTool({
  name: 'record_feedback',
  title: 'Say which results were relevant',
  description: `Mark memories a search or query showed you as relevant or not. Each verdict is linked to your latest retrieval that showed the memory (or to retrieval_id), with the score it was shown at: it rewards or penalises (dopamine; irrelevant results also raise noradrenaline, so search explores), and it is what trigger_recalibration fits the search score threshold to. hydrate_citation counts as a weak positive by itself. One transaction: undo takes the verdicts back.
When to use: after using (or discarding) search results, so the server learns what a good score is.
Example: {"node_ids": ["01J9Z3K6Q4M8W2X5Y7R1T0V3AB"], "relevant": true}
Advanced: {"node_ids": ["[node_0190f3a2c4e5b6d7e8f9a0b1c2d3e4f5]", "01J9Z3K6Q4M8W2X5Y7R1T0V3AC"], "relevant": false, "retrieval_id": 42, "format": "json"}`,
  annotations: WRITE,
  input: z.strictObject({
    node_ids: z.array(nodeIdField).min(1).max(50).describe('Memories the verdict is about (1–50).'),
    relevant: z.boolean(),
    retrieval_id: z.number().int().min(1).optional().describe('The logged retrieval that showed them; default: your latest one that did.'),
  }),
  output: z.object({
    kind: z.literal('feedbackRecorded:v1'),
    outcomes: z.array(
      z.object({
        node_id: z.string(),
        outcome: z.enum(['relevant', 'irrelevant', 'hydrated']),
        retrieval_id: z.number().int().nullable().describe('Null when none of your recent retrievals showed it: then it counts for the reward only.'),
        score: z.number().nullable(),
        rank: z.number().int().nullable(),
      }),
    ),
  }),
  async handler(args, ctx) {
    const nodes = [];
    for (const id of new Set(args.node_ids)) nodes.push(await ctx.services.curation.liveNode(id));
    const outcomes = await ctx.services.signals.recordOutcomes(ctx, nodes, args.relevant ? 'relevant' : 'irrelevant', args.retrieval_id ?? null);
    return { kind: 'feedbackRecorded:v1' as const, outcomes };
  },
  render: (r) =>
    r.outcomes
      .map(
        (o) =>
          `- \`${o.node_id}\` ${o.outcome}${o.retrieval_id === null ? ' (not found in your recent retrievals)' : ` — retrieval ${o.retrieval_id}, rank ${o.rank}, score ${o.score?.toFixed(3)}`}`,
      )
      .join('\n'),
});

const change = z.object({
  at: z.string(),
  subsystem: z.string(),
  target: z.string(),
  before: z.unknown(),
  after: z.unknown(),
  source: z.string().describe('manual, sync_step or recalibration.'),
  actor: z.string().nullable(),
  rationale: z.string().nullable(),
});

export const getSteeringFeedbackTool = defineTool({
  name: 'get_steering_feedback',
  title: 'What feedback taught the server, and what it changed',
  description: `The feedback received (relevant, irrelevant, hydrated; precision of what was shown), the reward it adds up to (dopamine above or below its baseline), the current thresholds and modulator levels, and the latest changes the signals made or were told to make (fusion weight factors from sync steps, the score threshold from recalibration, coupling and modulator adjustments), each with before, after, source and reason.
When to use: to audit what the server learned from use before trusting or reverting it.
Example: {}
Advanced: {"limit": 50, "format": "json"}`,
  annotations: READ_ONLY,
  input: z.strictObject({ limit: z.number().int().min(1).max(200).default(20).describe('Changes listed, newest first.') }),
  output: z.object({
    kind: z.literal('steeringFeedback:v1'),
    feedback: z.object({
      relevant: z.number().int(),
      irrelevant: z.number().int(),
      hydrated: z.number().int(),
      linked_to_retrievals: z.number().int(),
      precision: z.number().nullable().describe('relevant / (relevant + irrelevant).'),
      last_at: z.string().nullable(),
    }),
    reward: z.number().describe('Dopamine minus its baseline: the decayed sum of recent outcomes and adjustments.'),
    state: z.object({ score_threshold: z.number(), default_score_threshold: z.number(), modulators: z.record(z.string(), z.number()) }),
    changes: z.array(change),
  }),
  async handler(args, ctx) {
    return { kind: 'steeringFeedback:v1' as const, ...(await ctx.services.signals.steering(args.limit)) };
  },
  render: (r) => {
    const f = r.feedback;
    const head = `Feedback: ${f.relevant} relevant, ${f.irrelevant} irrelevant, ${f.hydrated} hydrated${f.precision === null ? '' : ` (precision ${f.precision.toFixed(2)})`}; reward ${r.reward.toFixed(3)}; score threshold ${r.state.score_threshold.toFixed(3)} (default ${r.state.default_score_threshold}).`;
    const rows = r.changes.map(
      (c) => `- ${c.at} ${c.subsystem}/${c.target}: ${JSON.stringify(c.before)} → ${JSON.stringify(c.after)} (${c.source}${c.rationale ? `: ${c.rationale}` : ''})`,
    );
    return [head, ...(rows.length ? rows : ['No changes yet.'])].join('\n');
  },
});
