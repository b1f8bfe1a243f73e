import * as z from 'zod';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { projectIdField } from '../kit/fields.js';
import { aliased } from '../kit/aliases.js';
import { markersFor, renderCards } from '../kit/markdown.js';
import { contractMarkersSchema } from '../kit/payloads.js';
import { navNodeSchema, nodeLine } from '../navigation/shapes.js';

const input = z.strictObject({
  project_id: aliased(projectIdField.default('default').describe('The project to review.'), 'project'),
  limit: z.number().int().min(1).max(100).default(20),
});

const output = z.object({
  kind: z.literal('pruningCandidates:v1'),
  candidates: z.array(
    z.object({
      node: navNodeSchema,
      score: z.number().describe('(1 − importance) × 1/(1 + access_count) × idle_rank × redundancy, 0..1.'),
      importance: z.number(),
      access_count: z.number().int(),
      idle_days: z.number().describe('Days since last read (or written, if never read).'),
      idle_rank: z.number().describe("Share of the project's memories idle for less time (1: the longest idle)."),
      redundancy: z.number().describe('1 when a summary covers it, else its nearest E1 neighbour’s cosine.'),
      redundant_with: z.object({ kind: z.enum(['summary', 'near_duplicate', 'none']), similarity: z.number() }),
    }),
  ),
  contract_markers: contractMarkersSchema,
});

export const getPruningCandidatesTool = defineTool({
  name: 'get_pruning_candidates',
  title: 'Memories worth reviewing for removal',
  description: `Ranks a project's memories by how safely they could go: low importance × low access × long idle time (ranked within the project) × redundancy (covered by a summary, or a near-duplicate of another memory). Every factor comes from the store and is returned. Never deletes anything: forget_concept does, with a rationale and undo.
When to use: after trigger_consolidation, or when a project grows noisy, to decide what to forget.
Example: {"project_id": "default"}
Advanced: {"project_id": "support", "limit": 50}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    const candidates = await ctx.services.dreams.pruningCandidates({ projectId: args.project_id, limit: args.limit });
    return { kind: 'pruningCandidates:v1' as const, candidates, contract_markers: markersFor(candidates.length) };
  },
  render(r) {
    return renderCards(
      'candidate',
      `${r.candidates.length} pruning candidate${r.candidates.length === 1 ? '' : 's'}, most prunable first (nothing was deleted).`,
      r.candidates,
      (c) =>
        `${nodeLine(c.node)} · score ${c.score.toFixed(3)} · importance ${c.importance} · read ${c.access_count}× · idle ${c.idle_days} d · redundancy ${c.redundancy} (${c.redundant_with.kind})\n  ${c.node.snippet}`,
    );
  },
});
