import * as z from 'zod';
import { AppError } from '../../errors.js';
import { markersFor } from '../kit/markdown.js';
import { contractMarkersSchema } from '../kit/payloads.js';
import { aliased } from '../kit/aliases.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { contentField, nodeIdField } from '../kit/fields.js';
import { round4 } from './fields.js';

/** The seed's name (seed 001 §1.3); MCP tool names allow only [A-Za-z0-9._-] (SDK toolNameValidation, SEP-986). */
export const SEED_DELTA_SC_NAME = 'gwt/compute_delta_sc';

const quadrant = z.enum(['open', 'hidden', 'blind', 'unknown']);

const output = z.object({
  kind: z.literal('delta_sc:v1'),
  reference_id: z.string(),
  target_id: z.string().nullable().describe('null: the target was candidate_text.'),
  reference_neighbours: z.number().int().describe('Graph neighbours of the reference in the ΔC context.'),
  context_size: z.number().int().describe('Memories ΔC was measured against: the reference, its graph neighbours, its project’s recent memories.'),
  delta_s: z.number().describe('ΔS, UTL-weighted over spaces: how surprising the target is next to the reference, on the project’s k-NN distance scale.'),
  delta_c: z.number().describe('ΔC, UTL-weighted: how well it fits the reference’s context (connectivity, cluster fit, consistency).'),
  learning: z.number().describe('L = ΔS^λS · ΔC^λC with the project stage λ.'),
  stage: z.string(),
  johari: quadrant,
  johari_threshold: z.number(),
  spaces: z.array(z.object({ space: z.string(), similarity: z.number(), delta_s: z.number(), delta_c: z.number(), johari: quadrant })),
  contract_markers: contractMarkersSchema,
});

export const computeDeltaScTool = defineTool({
  name: 'gwt_compute_delta_sc',
  title: 'ΔS/ΔC between two memories',
  description: `Surprise ΔS and coherence ΔC of a stored memory (target_id) or a candidate text against a reference memory, per space and aggregated, with L and the Johari quadrant, by the fingerprint job's own UTL code: ΔS next to the reference alone, ΔC against the reference's context (itself, its graph neighbours, its project's recent memories). Seed 001 names it gwt/compute_delta_sc; MCP tool names cannot hold "/", so this is its name and the seed's is accepted as an alias.
When to use: before storing, to see whether a text would be new (high ΔS) or redundant next to a memory, or to compare two memories.
Example: {"node_id": "01JD3Z8Y6W2M4Q9R7T5V1X3B6C", "candidate_text": "Backups now run hourly."}
Advanced: {"node_id": "01JD3Z8Y6W2M4Q9R7T5V1X3B6C", "target_id": "01JD3Z9K2P4R6T8V0X2Z4B6D8F", "johari_threshold": 0.4}`,
  annotations: READ_ONLY,
  input: z.strictObject({
    node_id: aliased(nodeIdField.describe('The reference memory (the "old" fingerprint).'), 'old_node_id', 'reference_id'),
    target_id: aliased(nodeIdField.optional().describe('A stored memory to measure against it (the "new" fingerprint).'), 'new_node_id'),
    candidate_text: contentField.optional().describe('Or a text not stored, embedded now.'),
    johari_threshold: z.number().min(0.35).max(0.65).default(0.5).describe('ΔS/ΔC boundary of the Johari quadrants, [0.35, 0.65].'),
  }),
  output,
  async handler(args, ctx) {
    if ((args.target_id === undefined) === (args.candidate_text === undefined))
      throw new AppError('INVALID_PARAMS', 'Give exactly one of target_id and candidate_text.', {
        issues: [{ path: 'target_id', message: 'exactly one of target_id, candidate_text' }],
      });
    const r = await ctx.services.teleologyQueries.deltaSc({ referenceId: args.node_id, targetId: args.target_id, text: args.candidate_text, threshold: args.johari_threshold });
    return {
      kind: 'delta_sc:v1' as const,
      reference_id: r.reference.id,
      target_id: r.target?.id ?? null,
      reference_neighbours: r.neighbours,
      context_size: r.context,
      delta_s: round4(r.deltaS),
      delta_c: round4(r.deltaC),
      learning: round4(r.learning),
      stage: r.stage,
      johari: r.quadrant,
      johari_threshold: args.johari_threshold,
      spaces: r.spaces.map((s) => ({ space: s.space, similarity: round4(s.similarity), delta_s: round4(s.surprise), delta_c: round4(s.coherence), johari: s.quadrant })),
      contract_markers: markersFor(0),
    };
  },
  render(r) {
    return [
      `${r.target_id ?? 'The candidate text'} against ${r.reference_id}: ΔS ${r.delta_s}, ΔC ${r.delta_c}, L ${r.learning} (${r.stage}), Johari ${r.johari} at threshold ${r.johari_threshold}.`,
      '',
      '| space | cosine | ΔS | ΔC | Johari |',
      '|---|---|---|---|---|',
      ...r.spaces.map((s) => `| ${s.space} | ${s.similarity} | ${s.delta_s} | ${s.delta_c} | ${s.johari} |`),
    ].join('\n');
  },
});
