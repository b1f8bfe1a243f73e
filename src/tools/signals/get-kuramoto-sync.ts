import * as z from 'zod';
import { defineTool, READ_ONLY } from '../kit/define.js';

export const oscillatorSchema = z.object({
  space: z.string(),
  signal: z.string().describe('Its name in search hits’ signals.'),
  status: z
    .enum(['in_sync', 'out_of_sync', 'no_evidence', 'unweighted', 'planned'])
    .describe(
      'in_sync: its recent phases average within ±60° of the fused ranking (mean cos φ ≥ 0.5); no phase for a planned space, an unweighted one (not fused by default) or one no logged retrieval asked yet.',
    ),
  phase: z.number().nullable().describe('Radians in (−π, π] relative to the fused ranking (0 = agrees with it).'),
  agreement: z.number().nullable().describe('Recency-weighted share of the fused top hits this space ranked in its own top 10.'),
  steps: z.number().int(),
  coherence: z.number().nullable().describe('|recent mean of e^{iφ}|: near 1 when the phase holds still (locked), near 0 when it sweeps the circle (drifting).'),
  sync_factor: z.number().nullable().describe('Recent mean cos φ, at least 0.1: what its fusion weight is scaled by (to the power weight_spread).'),
  base_weight: z.number(),
  weight: z.number().describe('The fusion weight search uses now.'),
});

const output = z.object({
  kind: z.literal('kuramotoSync:v1'),
  coupling: z.number(),
  coupling_range: z.object({ min: z.number(), max: z.number() }),
  r: z.number().nullable().describe('Order parameter |Σ e^{iφ}|/N over the spaces with a phase; null before any sync step.'),
  psi: z.number().nullable().describe('Mean phase (radians).'),
  oscillators_with_phase: z.number().int(),
  steps: z.number().int().describe('Logged retrievals stepped so far.'),
  stepped_at: z.string().nullable(),
  pending_retrievals: z.number().int().describe('Logged since the last step (the next step reads them).'),
  weight_spread: z.number().describe('Exponent of the sync factor, 2 × (1 − serotonin).'),
  oscillators: z.array(oscillatorSchema),
});

export const getKuramotoSyncTool = defineTool({
  name: 'get_kuramoto_sync',
  title: 'Kuramoto sync of the embedding spaces',
  description: `The 13 embedding spaces as oscillators: each space's phase is driven by how well its own ranking agreed with the fused ranking on logged searches; the fused ranking pulls each back with coupling K. Reports r (order parameter), the mean phase, each phase and the fusion weight search uses now (spaces out of sync are down-weighted until they resynchronise). Spaces that are planned or not fused by default have no phase and say so.
When to use: to see which spaces search currently trusts, and why.
Example: {}
Advanced: {"format": "json"}`,
  annotations: READ_ONLY,
  input: z.strictObject({}),
  output,
  async handler(_args, ctx) {
    return { kind: 'kuramotoSync:v1' as const, ...(await ctx.services.signals.kuramoto()) };
  },
  render(r) {
    const head =
      r.r === null
        ? 'No sync step has seen a retrieval yet.'
        : `r = ${r.r.toFixed(3)}, ψ = ${r.psi!.toFixed(3)} rad, K = ${r.coupling}, ${r.steps} retrievals stepped (${r.pending_retrievals} pending).`;
    const rows = r.oscillators.map(
      (o) =>
        `| ${o.space} | ${o.status} | ${o.phase === null ? '—' : o.phase.toFixed(3)} | ${o.agreement === null ? '—' : o.agreement.toFixed(2)} | ${o.base_weight} | ${o.weight.toFixed(3)} |`,
    );
    return [head, '', '| space | status | phase | agreement | base weight | weight |', '|---|---|---|---|---|---|', ...rows].join('\n');
  },
});
