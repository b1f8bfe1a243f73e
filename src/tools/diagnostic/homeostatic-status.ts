import * as z from 'zod';
import { DOMINANCE_LIFT, DOMINANCE_SHARE, HUB_QUANTILE, MIN_HUB_DEGREE, PROBE_TOP_K, PROBES } from '../../services/diagnostics/homeostasis.js';
import { IMPORTANCE_SETPOINT, SETPOINT_TOLERANCE } from '../../services/diagnostics/distribution.js';
import { aliased } from '../kit/aliases.js';
import { cited, citedIdSchema } from '../curation/cited.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { projectIdField } from '../kit/fields.js';
import { inlineText } from '../kit/markdown.js';

const input = z.strictObject({
  project_id: aliased(projectIdField.default('default').describe('The project to examine.'), 'project'),
});

const memorySchema = citedIdSchema.extend({ topic: z.string().nullable(), snippet: z.string() });

const output = z.object({
  kind: z.literal('homeostatic:v1'),
  project_id: z.string(),
  memories: z.number().int(),
  importance: z.object({
    count: z.number().int(),
    mean: z.number(),
    std: z.number(),
    quantiles: z.object({ p0: z.number(), p10: z.number(), p25: z.number(), p50: z.number(), p75: z.number(), p90: z.number(), p99: z.number(), p100: z.number() }),
    histogram: z.array(z.object({ from: z.number(), to: z.number(), count: z.number().int() })),
    gini: z.number().describe('0: every memory weighs the same; towards 1: a few hold all the importance.'),
    scaling: z.object({
      setpoint: z.number(),
      factor: z.number().nullable().describe('What every importance would be multiplied by to bring the mean back to the setpoint.'),
      state: z.enum(['balanced', 'inflated', 'deflated', 'empty']),
      deviation: z.number().describe('mean − setpoint'),
    }),
  }),
  degree: z.object({ p50: z.number(), p90: z.number(), max: z.number(), hub_threshold: z.number() }),
  probes: z.number().int().describe('Memories whose text was searched for to measure dominance.'),
  baseline_share: z.number().describe('The share of probes an average memory turns up in.'),
  semantic_cancer: z.array(
    memorySchema.extend({
      cancer: z.boolean().describe('Every criterion holds: dominating, hub and growing.'),
      importance: z.number(),
      stored_importance: z.number().nullable(),
      importance_growth: z.number(),
      degree: z.number().int(),
      dominance: z.object({ hits: z.number().int(), probes: z.number().int(), share: z.number() }),
      criteria: z.object({ dominating: z.boolean(), hub: z.boolean(), growing: z.boolean() }),
    }),
  ),
  quarantine: z.array(memorySchema.extend({ quarantined_at: z.string().nullable(), by: z.string().nullable(), rationale: z.string().nullable() })),
});

const snippet = (s: string) => (s.length > 160 ? `${s.slice(0, 160)}…` : s);

export const homeostaticStatusTool = defineTool({
  name: 'homeostatic_status',
  title: 'Homeostatic status',
  description: `How importance is spread over a project's memories (quantiles, histogram, Gini) and how far its mean is from the setpoint ${IMPORTANCE_SETPOINT} (the scaling factor that would restore it; balanced within ±${SETPOINT_TOLERANCE}); which memories show semantic cancer; and the quarantine list. Dominance is measured: up to ${PROBES} memories of the project are each searched for with their own text, and a memory in the visible top ${PROBE_TOP_K} of at least ${Math.round(DOMINANCE_SHARE * 100)}% of the other memories' queries, and ${DOMINANCE_LIFT}× the share of an average memory, dominates them. It is cancer when it also is a hub (degree ≥ the project's ${HUB_QUANTILE * 100}th percentile and ≥ ${MIN_HUB_DEGREE}) and its importance was raised since it was stored. boost_importance refuses to feed such a memory (SEMANTIC_CANCER_DETECTED, −32015); quarantine_node takes it out of search.
When to use: when one memory keeps showing up in answers it has nothing to do with, or before boosting importance in bulk.
Example: {}
Advanced: {"project_id": "team-x", "format": "json"}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    const r = await ctx.services.homeostasis.status(args.project_id);
    return {
      kind: 'homeostatic:v1' as const,
      project_id: r.project_id,
      memories: r.memories,
      importance: r.distribution,
      degree: r.degree,
      probes: r.probes,
      baseline_share: r.baseline_share,
      semantic_cancer: r.dominating.map((c) => ({
        ...cited(c.node.id),
        topic: c.node.topic,
        snippet: snippet(c.node.content),
        cancer: c.cancer,
        importance: c.importance,
        stored_importance: c.stored_importance,
        importance_growth: c.importance_growth,
        degree: c.degree,
        dominance: c.dominance,
        criteria: c.criteria,
      })),
      quarantine: r.quarantine.map((n) => {
        const q = (n.metadata.quarantine ?? {}) as { at?: unknown; by?: unknown; rationale?: unknown };
        return {
          ...cited(n.id),
          topic: n.topic,
          snippet: snippet(n.content),
          quarantined_at: typeof q.at === 'string' ? q.at : null,
          by: typeof q.by === 'string' ? q.by : null,
          rationale: typeof q.rationale === 'string' ? q.rationale : null,
        };
      }),
    };
  },
  render(r) {
    const i = r.importance;
    const lines = [
      `Project ${inlineText(r.project_id)}: ${r.memories} memories. Importance mean ${i.mean} (setpoint ${i.scaling.setpoint}, ${i.scaling.state}${i.scaling.factor !== null ? `, scaling factor ${i.scaling.factor}` : ''}), p10/p50/p90 ${i.quantiles.p10}/${i.quantiles.p50}/${i.quantiles.p90}, Gini ${i.gini}.`,
      `Histogram: ${i.histogram.map((b) => `${b.from.toFixed(1)}–${b.to.toFixed(1)} ${b.count}`).join(' · ')}`,
      `Degree p50 ${r.degree.p50}, p90 ${r.degree.p90}, max ${r.degree.max}; hubs from ${r.degree.hub_threshold}. Dominance measured over ${r.probes} probe queries (an average memory turns up in ${Math.round(r.baseline_share * 100)}%).`,
    ];
    if (r.semantic_cancer.length === 0) lines.push('No memory dominates other memories’ results.');
    for (const c of r.semantic_cancer)
      lines.push(
        `- ${c.citation} ${c.cancer ? 'SEMANTIC CANCER' : 'dominating'}: in ${c.dominance.hits}/${c.dominance.probes} other queries' results, degree ${c.degree}, importance ${c.importance} (${c.importance_growth >= 0 ? '+' : ''}${c.importance_growth} since stored) · ${inlineText(c.snippet, 80)}`,
      );
    lines.push(r.quarantine.length ? `Quarantined (left out of search): ${r.quarantine.map((q) => q.citation).join(', ')}` : 'Quarantine is empty.');
    return lines.join('\n');
  },
});
