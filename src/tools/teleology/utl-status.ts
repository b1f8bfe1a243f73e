import * as z from 'zod';
import { markersFor } from '../kit/markdown.js';
import { contractMarkersSchema } from '../kit/payloads.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { projectIdField } from '../kit/fields.js';

const quadrants = z.object({ open: z.number().int(), hidden: z.number().int(), blind: z.number().int(), unknown: z.number().int() });

const output = z.object({
  kind: z.literal('utl_status:v1'),
  project_id: z.string().nullable(),
  fingerprinted: z.number().int().describe('Live memories with a fingerprint (the fingerprint job runs after embedding).'),
  stages: z.record(z.string(), z.number().int()).describe('Lifecycle stage (by the project size when each was fingerprinted): infancy < 50, growth < 500, maturity.'),
  learning: z.object({ p10: z.number().nullable(), median: z.number().nullable(), p90: z.number().nullable() }).describe('Learning magnitude L over the memories.'),
  spaces: z.array(
    z.object({
      space: z.string(),
      memories: z.number().int(),
      surprise: z.number().nullable().describe('Mean ΔS: k-NN distance relative to the store distribution.'),
      coherence: z.number().nullable().describe('Mean ΔC: connectivity, cluster fit, consistency.'),
      purpose: z.number().nullable().describe('Mean alignment with the project centroid.'),
      johari: quadrants,
    }),
  ),
  contract_markers: contractMarkersSchema,
});

export const utlStatusTool = defineTool({
  name: 'utl_status',
  title: 'UTL status',
  description: `Surprise (ΔS), coherence (ΔC), learning magnitude (L) and Johari quadrants over the stored memories, per embedding space.
When to use: to see whether a project is still learning new things (high ΔS, blind/unknown quadrants) or consolidating (open/hidden), and which spaces carry the novelty.
Example: {}
Advanced: {"project_id": "payments"}`,
  annotations: READ_ONLY,
  input: z.strictObject({ project_id: projectIdField.optional().describe('Only this project (default: every project).') }),
  output,
  async handler(args, ctx) {
    const s = await ctx.services.teleology.utlStatus(args.project_id ?? null);
    return { kind: 'utl_status:v1' as const, project_id: args.project_id ?? null, ...s, contract_markers: markersFor(0) };
  },
  render(r) {
    const rows = r.spaces.map(
      (s) =>
        `| ${s.space} | ${s.memories} | ${s.surprise ?? '–'} | ${s.coherence ?? '–'} | ${s.purpose ?? '–'} | ${s.johari.open}/${s.johari.hidden}/${s.johari.blind}/${s.johari.unknown} |`,
    );
    return [
      `UTL over ${r.fingerprinted} fingerprinted memor${r.fingerprinted === 1 ? 'y' : 'ies'}${r.project_id ? ` in ${r.project_id}` : ''}; L p10/median/p90 ${r.learning.p10 ?? '–'}/${r.learning.median ?? '–'}/${r.learning.p90 ?? '–'}.`,
      '',
      '| space | memories | ΔS | ΔC | purpose | open/hidden/blind/unknown |',
      '|---|---|---|---|---|---|',
      ...rows,
    ].join('\n');
  },
});
