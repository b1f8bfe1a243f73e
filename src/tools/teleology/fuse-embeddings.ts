import * as z from 'zod';
import { AppError } from '../../errors.js';
import { markersFor, quoteMemory, renderCards } from '../kit/markdown.js';
import { contractMarkersSchema } from '../kit/payloads.js';
import { aliased } from '../kit/aliases.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { entryLinks } from '../kit/entry.js';
import { contentField, nodeIdField, projectIdField } from '../kit/fields.js';
import { profileNameField, round4, spaceWeightsField } from './fields.js';

const output = z.object({
  kind: z.literal('fused_embeddings:v1'),
  source_id: z.string().nullable().describe('null: the source was text.'),
  profile: z.string().nullable().describe('The profile whose weights were used; null with explicit weights.'),
  fused: z.object({
    dims: z.number().int().describe('Dimensions of the fused dense vector (the weighted dense spaces, concatenated).'),
    norm: z.number().describe('Its length: √(dense share of the weight); sparse spaces enter the similarity only.'),
    spaces: z.array(z.object({ space: z.string(), dim: z.number().int(), weight: z.number(), share: z.number() })),
  }),
  ranking: z.array(
    z.object({
      id: z.string(),
      score: z.number().describe('Weighted mean of per-space cosines with the source under these weights.'),
      rank: z.number().int(),
      default_score: z.number(),
      default_rank: z.number().int().describe('Its rank under the default profile: the effect of the weights.'),
      by_space: z.record(z.string(), z.number()),
      text: z.string(),
    }),
  ),
  moved: z.number().int().describe('Candidates whose rank differs from the default weighting.'),
  candidates: z.number().int(),
  contract_markers: contractMarkersSchema,
});

export const fuseEmbeddingsTool = defineTool({
  name: 'fuse_embeddings',
  title: 'Fuse per-space vectors',
  description: `Fuse a memory's (or a text's) per-space vectors with given weights or a profile's, and show the effect: the fused vector's make-up, and the nearest memories ranked by the weighted per-space similarity beside their rank under the default weights.
When to use: to see what a weighting does before saving it as a profile, or why a memory is (not) near another under some spaces.
Example: {"node_id": "01JD3Z8Y6W2M4Q9R7T5V1X3B6C", "profile": "code"}
Advanced: {"text": "parseHttpRequest timeout in src/net", "weights": {"E7": 3, "E1": 1, "E13": 0.5}, "project_id": "payments", "limit": 10}`,
  annotations: READ_ONLY,
  input: z.strictObject({
    node_id: aliased(nodeIdField.optional().describe('The memory whose vectors to fuse.'), 'id'),
    text: contentField.optional().describe('Or a text, embedded now.'),
    weights: spaceWeightsField.optional(),
    profile: profileNameField.optional().describe('Weights of this profile (default: "default") when no weights are given.'),
    project_id: aliased(projectIdField.optional().describe('Candidates from this project (a node source: its own).'), 'project'),
    limit: z.number().int().min(1).max(50).default(10),
  }),
  output,
  async handler(args, ctx) {
    if ((args.node_id === undefined) === (args.text === undefined))
      throw new AppError('INVALID_PARAMS', 'Give exactly one of node_id and text.', { issues: [{ path: 'node_id', message: 'exactly one of node_id, text' }] });
    const profile = args.weights ? null : await ctx.services.teleologyQueries.goalVector({ profile: args.profile ?? 'default', projectId: args.project_id });
    const weights = args.weights ?? profile!.weights;
    const r = await ctx.services.teleologyQueries.fuse({ nodeId: args.node_id, text: args.text, projectId: args.project_id, weights, limit: args.limit });
    return {
      kind: 'fused_embeddings:v1' as const,
      source_id: r.node?.id ?? null,
      profile: profile?.name ?? null,
      fused: { dims: r.dims, norm: round4(r.norm), spaces: r.spaces.map((s) => ({ ...s, weight: round4(s.weight), share: round4(s.share) })) },
      ranking: r.hits.map((h) => ({
        id: h.node.id,
        score: round4(h.score),
        rank: h.rank,
        default_score: round4(h.defaultScore),
        default_rank: h.defaultRank,
        by_space: h.bySpace,
        text: h.node.content,
      })),
      moved: r.moved,
      candidates: r.candidates,
      contract_markers: markersFor(r.hits.length),
    };
  },
  render(r) {
    const shares = r.fused.spaces
      .filter((s) => s.share > 0)
      .map((s) => `${s.space} ${s.share}`)
      .join(', ');
    return renderCards(
      'hit',
      `Fused ${r.fused.dims} dense dimensions (shares: ${shares}); ${r.moved} of ${r.candidates} candidates change rank against the default weights.`,
      r.ranking,
      (h) => `#${h.rank} (default #${h.default_rank}) \`${h.id}\` score ${h.score} (default ${h.default_score})\n${quoteMemory(h.text)}`,
    );
  },
  resourceLinks: (_args, r) => entryLinks(r.ranking),
});
