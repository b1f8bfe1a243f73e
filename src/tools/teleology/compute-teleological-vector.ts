import * as z from 'zod';
import { markersFor } from '../kit/markdown.js';
import { contractMarkersSchema } from '../kit/payloads.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { aliased } from '../kit/aliases.js';

const output = z.object({
  kind: z.literal('teleological_vector:v1'),
  id: z.string(),
  status: z.enum(['ready', 'pending', 'stale']).describe('pending: the fingerprint job has not run yet; stale: computed under other model ids.'),
  stage: z.string().nullable(),
  learning: z.number().nullable().describe('L in [0, 1]: new (ΔS) and coherent (ΔC) at once; search_graph ranks with it.'),
  dominant_space: z.string().nullable().describe('The space the memory aligns with best (highest purpose).'),
  spaces: z.array(
    z.object({
      space: z.string(),
      purpose: z.number().describe('Alignment with the project centroid in this space, [0, 1].'),
      surprise: z.number(),
      coherence: z.number(),
      johari: z.enum(['open', 'hidden', 'blind', 'unknown']),
    }),
  ),
  computed_at: z.string().nullable(),
  contract_markers: contractMarkersSchema,
});

export const computeTeleologicalVectorTool = defineTool({
  name: 'compute_teleological_vector',
  title: 'Teleological fingerprint of a memory',
  description: `A memory's teleological fingerprint: per embedding space its purpose alignment, surprise ΔS, coherence ΔC and Johari quadrant, and its learning magnitude L.
When to use: to see why a memory ranks as it does in search_graph, or in which spaces it is new (blind/unknown) or well known (open).
Example: {"id": "01JD3Z8Y6W2M4Q9R7T5V1X3B6C"}
Advanced: {"node_id": "01JD3Z8Y6W2M4Q9R7T5V1X3B6C", "format": "json"}`,
  annotations: READ_ONLY,
  input: z.strictObject({ id: aliased(z.string().min(1).describe('The memory id.'), 'node_id') }),
  output,
  async handler(args, ctx) {
    const { node, fingerprint: f, stale } = await ctx.services.teleology.fingerprint(args.id);
    const spaces = f ? f.spaces.map((space, i) => ({ space, purpose: f.purpose[i]!, surprise: f.surprise[i]!, coherence: f.coherence[i]!, johari: f.johari[i] as 'open' })) : [];
    const dominant = spaces.reduce<(typeof spaces)[number] | null>((best, s) => (!best || s.purpose > best.purpose ? s : best), null);
    return {
      kind: 'teleological_vector:v1' as const,
      id: node.id,
      status: !f ? ('pending' as const) : stale ? ('stale' as const) : ('ready' as const),
      stage: f?.stage ?? null,
      learning: f ? Math.round(f.learning * 1e4) / 1e4 : null,
      dominant_space: dominant?.space ?? null,
      spaces,
      computed_at: f ? new Date(f.computed_at).toISOString() : null,
      contract_markers: markersFor(0),
    };
  },
  render(r) {
    if (r.status === 'pending') return `No fingerprint for ${r.id} yet: the fingerprint job runs after its vectors are written. Ask again shortly.`;
    const rows = r.spaces.map((s) => `| ${s.space} | ${s.purpose.toFixed(3)} | ${s.surprise.toFixed(3)} | ${s.coherence.toFixed(3)} | ${s.johari} |`);
    return [
      `${r.id}: L ${r.learning} (${r.stage}), dominant space ${r.dominant_space}${r.status === 'stale' ? ' (stale: computed under other models)' : ''}.`,
      '',
      '| space | purpose | ΔS | ΔC | Johari |',
      '|---|---|---|---|---|',
      ...rows,
    ].join('\n');
  },
});
