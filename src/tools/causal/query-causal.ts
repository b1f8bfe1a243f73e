import * as z from 'zod';
import { inlineText, markersFor, quoteMemory, renderCards } from '../kit/markdown.js';
import { contractMarkersSchema } from '../kit/payloads.js';
import { aliased } from '../kit/aliases.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { entryLinks } from '../kit/entry.js';
import { boundedQueryField, projectIdField } from '../kit/fields.js';
import { round4 } from '../teleology/fields.js';

const output = z.object({
  kind: z.literal('query_causal:v1'),
  direction: z.enum(['causes', 'effects']).describe('What was looked for (auto resolves from the wording).'),
  hits: z.array(
    z.object({
      id: z.string(),
      score: z.number(),
      answer: z.string().nullable().describe('The cause (or effect) the memory states; null when it states none.'),
      via: z.string().nullable().describe('Reached over a Causal edge from this hit.'),
      text: z.string(),
    }),
  ),
  contract_markers: contractMarkersSchema,
});

export const queryCausalTool = defineTool({
  name: 'query_causal',
  title: 'Ask why, or what followed',
  description: `Answer a causal question from memory: "why …?" finds memories whose effect matches and answers with the cause they state; "what did … lead to?" the reverse. Then each hit's Causal edges on the asked side add the memories they link.
When to use: for why/what-caused/what-happened-because questions; for a chain from one known memory use omni_infer or find_causal_path.
Example: {"query": "why did the deploy fail?"}
Advanced: {"query": "the database migration", "direction": "effects", "project_id": "ops", "limit": 5, "follow_edges": false}`,
  annotations: READ_ONLY,
  input: z.strictObject({
    query: aliased(boundedQueryField.describe('The question, or the event whose causes/effects you want.'), 'query_text'),
    direction: z.enum(['auto', 'causes', 'effects']).default('auto').describe('auto: read from the wording ("why" → causes); else causes.'),
    project_id: aliased(projectIdField.optional().describe('Only this project.'), 'project'),
    limit: z.number().int().min(1).max(50).default(10),
    follow_edges: z.boolean().default(true).describe('Add memories linked to the hits by Causal edges.'),
  }),
  output,
  async handler(args, ctx) {
    const r = await ctx.services.causalInference.query({
      text: args.query,
      direction: args.direction,
      projectId: args.project_id,
      limit: args.limit,
      followEdges: args.follow_edges,
    });
    return {
      kind: 'query_causal:v1' as const,
      direction: r.side,
      hits: r.hits.map((h) => ({ id: h.node.id, score: round4(h.score), answer: h.answer, via: h.via, text: h.node.content })),
      contract_markers: markersFor(r.hits.length),
    };
  },
  render(r) {
    return renderCards(
      'hit',
      `${r.hits.length} memor${r.hits.length === 1 ? 'y' : 'ies'} about ${r.direction}.`,
      r.hits,
      (h) =>
        `\`${h.id}\` score ${h.score}${h.via ? ` (linked from \`${h.via}\`)` : ''}${h.answer ? ` — ${r.direction === 'causes' ? 'cause' : 'effect'}: ${inlineText(h.answer)}` : ''}\n${quoteMemory(h.text)}`,
    );
  },
  resourceLinks: (_args, r) => entryLinks(r.hits),
});
