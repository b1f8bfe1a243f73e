import * as z from 'zod';
import { cited, citedIdSchema } from '../curation/cited.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { nodeIdField } from '../kit/fields.js';
import { inlineText } from '../kit/markdown.js';

const quadrant = z.enum(['open', 'hidden', 'blind', 'unknown']);

const output = z.object({
  kind: z.literal('johari:v1'),
  node: citedIdSchema,
  status: z.enum(['ready', 'pending', 'stale']).describe('pending: the fingerprint job has not run yet; stale: computed under other model ids.'),
  quadrants: z.array(quadrant.nullable()).length(13).describe('One per space E1 … E13; null where the space has no encoder here or no fingerprint yet.'),
  confidence: z.array(z.number()).length(13).describe('Distance from the nearer quadrant boundary (ΔS or ΔC at 0.5), scaled to [0, 1].'),
  spaces: z.array(
    z.object({
      space: z.string(),
      name: z.string(),
      status: z.enum(['computed', 'not_embedded', 'pending']),
      quadrant: quadrant.nullable(),
      surprise: z.number().nullable(),
      coherence: z.number().nullable(),
      confidence: z.number(),
    }),
  ),
  insights: z.array(z.string()).describe('Cross-space patterns, e.g. Open(E1) but Blind(E5): knows WHAT but not WHY.'),
});

export const getJohariClassificationTool = defineTool({
  name: 'get_johari_classification',
  title: 'Johari quadrant per embedding space',
  description: `A memory's Johari quadrant in each of the 13 embedding spaces — open (known, connected), hidden (known, isolated), blind (new, isolated), unknown (new, connected) — from its own surprise ΔS and coherence ΔC in that space (its fingerprint), with a confidence per space (distance from the 0.5 boundaries) and insights where spaces disagree (e.g. known in meaning E1 but new in cause E5: knows WHAT but not WHY). Spaces without an encoder here answer null.
When to use: to see in which respects a memory is new or isolated before trusting, linking or asking about it.
Example: {"node_id": "01J9Z3K6Q4M8W2X5Y7R1T0V3AB"}
Advanced: {"node_id": "[node_0190f3a2c4e5b6d7e8f9a0b1c2d3e4f5]", "format": "json"}`,
  annotations: READ_ONLY,
  input: z.strictObject({ node_id: nodeIdField }),
  output,
  async handler(args, ctx) {
    const r = await ctx.services.metacognition.johari(args.node_id);
    const computed = r.spaces.some((s) => s.status === 'computed');
    return {
      kind: 'johari:v1' as const,
      node: cited(r.node.id),
      status: !computed ? ('pending' as const) : r.stale ? ('stale' as const) : ('ready' as const),
      quadrants: r.spaces.map((s) => s.quadrant),
      confidence: r.spaces.map((s) => s.confidence),
      spaces: r.spaces,
      insights: r.insights,
    };
  },
  render(r) {
    if (r.status === 'pending') return `No fingerprint for ${r.node.citation} yet: the fingerprint job runs after its vectors are written. Ask again shortly.`;
    const rows = r.spaces.map((s) => `| ${s.space} ${s.name} | ${s.quadrant ?? s.status} | ${s.surprise ?? '–'} | ${s.coherence ?? '–'} | ${s.confidence} |`);
    return [
      `Johari classification of ${r.node.citation}${r.status === 'stale' ? ' (stale: computed under other models)' : ''}:`,
      '',
      '| space | quadrant | ΔS | ΔC | confidence |',
      '|---|---|---|---|---|',
      ...rows,
      '',
      ...r.insights.map((i) => `- ${inlineText(i, 300)}`),
    ].join('\n');
  },
});
