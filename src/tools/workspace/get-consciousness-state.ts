import * as z from 'zod';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { workspaceProjectField } from './shapes.js';

const input = z.strictObject({ project_id: workspaceProjectField });

const output = z.object({
  kind: z.literal('consciousnessState:v1'),
  project_id: z.string(),
  members: z.number().int(),
  winner: z.string().nullable(),
  edges_among_members: z.number().int(),
  edge_density: z.number().describe('Live edges among the workspace members / possible pairs: how integrated they are.'),
  activation_entropy: z.number().describe("Normalised Shannon entropy of the members' activations: 1 = all compete equally, 0 = one dominates."),
  semantic_coherence: z.number().nullable().describe('Mean pairwise E1 cosine among the members (null without vectors).'),
  kuramoto: z.object({
    r: z.number().nullable().describe('Order parameter of the embedding-space oscillators, when synchronisation is computed.'),
    psi: z.number().nullable(),
    reason: z.string().nullable().describe('Why r is null.'),
  }),
  level: z.number().describe('Mean of the available measures (edge density, entropy, coherence clamped to [0, 1], r).'),
  state: z.enum(['dormant', 'fragmented', 'emerging', 'conscious']).describe('level < 0.3, < 0.5, < 0.8, else conscious.'),
});

export const getConsciousnessStateTool = defineTool({
  name: 'get_consciousness_state',
  title: 'Integration of the global workspace',
  description: `Integration measures computed from the project's workspace: edge density among its members, entropy of their activations, their semantic coherence, the Kuramoto order parameter r when synchronisation is computed, and a level and state from them.
When to use: to see whether what the store attends to forms a connected whole (high density and coherence) or scattered pieces.
Example: {}
Advanced: {"project_id": "team-x", "format": "json"}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    return { kind: 'consciousnessState:v1' as const, ...(await ctx.services.workspace.consciousness(args.project_id)) };
  },
  render(r) {
    return `Workspace of ${r.project_id}: ${r.state} (level ${r.level}); ${r.members} members, ${r.edges_among_members} edges among them (density ${r.edge_density}), activation entropy ${r.activation_entropy}, coherence ${r.semantic_coherence ?? 'n/a'}, Kuramoto r ${r.kuramoto.r ?? `n/a (${r.kuramoto.reason})`}.`;
  },
});
