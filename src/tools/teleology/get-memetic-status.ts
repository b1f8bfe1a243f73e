import * as z from 'zod';
import { markersFor } from '../kit/markdown.js';
import { contractMarkersSchema } from '../kit/payloads.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { projectIdField } from '../kit/fields.js';

const quadrants = z.object({ open: z.number().int(), hidden: z.number().int(), blind: z.number().int(), unknown: z.number().int() });

const output = z.object({
  kind: z.literal('memetic_status:v1'),
  project_id: z.string().nullable(),
  memories: z.number().int().describe('Live memories (every project, or the one asked for).'),
  fingerprinted: z.number().int(),
  edges: z.number().int().describe('Live edges in the whole store.'),
  pending_jobs: z.number().int().nullable().describe('Jobs waiting or running (embedding, fingerprints); null when the queue cannot say.'),
  johari: quadrants.describe('Quadrant counts summed over spaces and memories.'),
  spaces: z.array(z.object({ space: z.string(), entropy: z.number().nullable().describe('Mean ΔS.'), coherence: z.number().nullable().describe('Mean ΔC.') })),
  contract_markers: contractMarkersSchema,
});

export const getMemeticStatusTool = defineTool({
  name: 'get_memetic_status',
  title: 'Memetic status',
  description: `The store's vital signs: memories, edges, pending jobs, and per space the mean surprise (entropy) and coherence with the Johari distribution.
When to use: to check whether stored knowledge is settling (low entropy, open/hidden) or full of unconnected novelty (blind), and whether background jobs are behind.
Example: {}
Advanced: {"project_id": "payments"}`,
  annotations: READ_ONLY,
  input: z.strictObject({ project_id: projectIdField.optional().describe('Only this project (default: every project).') }),
  output,
  async handler(args, ctx) {
    const t = ctx.services.teleology;
    const [m, utl, health] = await Promise.all([t.manifest(), t.utlStatus(args.project_id ?? null), ctx.services.health.report()]);
    const johari = { open: 0, hidden: 0, blind: 0, unknown: 0 };
    for (const s of utl.spaces) for (const q of Object.keys(johari) as Array<keyof typeof johari>) johari[q] += s.johari[q];
    const projects = args.project_id ? m.projects.filter((p) => p.project_id === args.project_id) : m.projects;
    const counts = health.queue.counts;
    return {
      kind: 'memetic_status:v1' as const,
      project_id: args.project_id ?? null,
      memories: projects.reduce((s, p) => s + p.nodes, 0),
      fingerprinted: utl.fingerprinted,
      edges: Object.values(m.edgesByType).reduce((s, n) => s + n, 0),
      pending_jobs: counts ? counts.waiting + counts.active : null,
      johari,
      spaces: utl.spaces.map((s) => ({ space: s.space, entropy: s.surprise, coherence: s.coherence })),
      contract_markers: markersFor(0),
    };
  },
  render(r) {
    return [
      `${r.memories} memories (${r.fingerprinted} fingerprinted), ${r.edges} edges, ${r.pending_jobs ?? '?'} pending jobs. Johari: open ${r.johari.open}, hidden ${r.johari.hidden}, blind ${r.johari.blind}, unknown ${r.johari.unknown}.`,
      '',
      '| space | entropy (ΔS) | coherence (ΔC) |',
      '|---|---|---|',
      ...r.spaces.map((s) => `| ${s.space} | ${s.entropy ?? '–'} | ${s.coherence ?? '–'} |`),
    ].join('\n');
  },
});
