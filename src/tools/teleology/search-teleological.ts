import * as z from 'zod';
import { markersFor, quoteMemory, renderCards } from '../kit/markdown.js';
import { contractMarkersSchema } from '../kit/payloads.js';
import { aliased } from '../kit/aliases.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { entryLinks } from '../kit/entry.js';
import { boundedQueryField, limitField, nodeIdField, projectIdField, unitInterval } from '../kit/fields.js';
import { profileNameField, round4 } from './fields.js';

const output = z.object({
  kind: z.literal('search_teleological:v1'),
  goal: z.string().describe('The profile name, or "purpose of <id>".'),
  goal_weights: z.record(z.string(), z.number()),
  alignment_weight: z.number(),
  hits: z.array(
    z.object({
      id: z.string(),
      score: z.number().describe('(1 − alignment_weight)·relevance + alignment_weight·alignment.'),
      relevance: z.number().describe('The fused search score.'),
      alignment: z.number().nullable().describe('Centred cosine of its purpose vector with the goal, in [0, 1]; null before its fingerprint exists (counts as 0).'),
      text: z.string(),
    }),
  ),
  considered: z.number().int().describe('Candidates the search found before alignment filtered and re-ranked them.'),
  contract_markers: contractMarkersSchema,
});

export const searchTeleologicalTool = defineTool({
  name: 'search_teleological',
  title: 'Search ranked by purpose',
  description: `Search, then rank by how well each memory's purpose vector (its per-space alignment with the project, from its fingerprint) matches a goal: a weight profile, or another memory's purpose vector.
When to use: when the right memory is the one that serves a purpose (e.g. the code profile, or "like this decision"), not only the one whose words match.
Example: {"query": "request timeout", "profile": "code"}
Advanced: {"query": "release process", "goal_node_id": "01JD3Z8Y6W2M4Q9R7T5V1X3B6C", "alignment_weight": 0.8, "min_alignment": 0.5, "project_id": "ops", "limit": 10}`,
  annotations: READ_ONLY,
  input: z.strictObject({
    query: aliased(boundedQueryField.describe('What to look for.'), 'query_text'),
    profile: profileNameField.optional().describe('Goal as a weight profile (default: "default"); ignored with goal_node_id.'),
    goal_node_id: aliased(nodeIdField.optional().describe("Goal as this memory's purpose vector."), 'goal_id'),
    alignment_weight: unitInterval.default(0.5).describe('0: relevance only; 1: alignment only.'),
    min_alignment: unitInterval.default(0).describe('Drop hits aligned less than this.'),
    project_id: aliased(projectIdField.optional().describe('Only this project.'), 'project'),
    limit: aliased(limitField.describe('How many results.'), 'top_k'),
  }),
  output,
  async handler(args, ctx) {
    const r = await ctx.services.teleologyQueries.searchTeleological({
      text: args.query,
      projectId: args.project_id,
      goal: { profile: args.profile, nodeId: args.goal_node_id },
      alignmentWeight: args.alignment_weight,
      minAlignment: args.min_alignment,
      limit: args.limit,
    });
    return {
      kind: 'search_teleological:v1' as const,
      goal: r.goal.name,
      goal_weights: Object.fromEntries(Object.entries(r.goal.weights).map(([s, w]) => [s, round4(w ?? 0)])),
      alignment_weight: args.alignment_weight,
      hits: r.hits.map((h) => ({
        id: h.node.id,
        score: round4(h.score),
        relevance: round4(h.relevance),
        alignment: h.alignment === null ? null : round4(h.alignment),
        text: h.node.topic ? `${h.node.topic}: ${h.node.content}` : h.node.content,
      })),
      considered: r.considered,
      contract_markers: markersFor(r.hits.length),
    };
  },
  render(r) {
    return renderCards(
      'hit',
      `${r.hits.length} of ${r.considered} candidates, ranked for the goal ${r.goal} (alignment weight ${r.alignment_weight}).`,
      r.hits,
      (h) => `\`${h.id}\` score ${h.score} (relevance ${h.relevance}, alignment ${h.alignment ?? 'pending'})\n${quoteMemory(h.text)}`,
    );
  },
  resourceLinks: (_args, r) => entryLinks(r.hits),
});
