import * as z from 'zod';
import { markersFor, quoteMemory, renderCards } from '../kit/markdown.js';
import { contractMarkersSchema } from '../kit/payloads.js';
import { aliased } from '../kit/aliases.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { entryLinks } from '../kit/entry.js';
import { limitField, projectIdField, queryTextField } from '../kit/fields.js';
import { profileNameField, round4 } from './fields.js';

const hit = z.object({
  id: z.string(),
  score: z.number().describe('Fused score × the learning factor (1 + 0.5·(L − 0.5)).'),
  fused: z.number().describe('The profile-weighted fusion of the spaces alone.'),
  learning: z.number().nullable().describe('L of the memory; null before its fingerprint exists (factor 1).'),
  spaces: z.record(z.string(), z.object({ rank: z.number().int(), score: z.number() })).describe('Each space (signal) that found it: rank and raw score.'),
  text: z.string(),
  project_id: z.string(),
});

const output = z.object({
  kind: z.literal('search_graph:v1'),
  profile: z.string(),
  weights: z.record(z.string(), z.number()),
  hits: z.array(hit),
  contract_markers: contractMarkersSchema,
});

export const searchGraphTool = defineTool({
  name: 'search_graph',
  title: 'Multi-space search',
  description: `Search every embedding space under a weight profile, re-ranked by what each memory taught the store (UTL learning magnitude L).
When to use: when a question leans on one family of signals — code identifiers (profile "code"), time (profile "temporal"), cause and effect ("causal"), names and numbers ("entity") — or with a profile you saved with manage_teleological_profile.
Example: {"query_text": "parseHttpRequest timeout", "profile": "code"}
Advanced: {"query_text": "why did the deploy fail", "project_id": "payments", "profile": "causal", "limit": 10}`,
  annotations: READ_ONLY,
  input: z.strictObject({
    query_text: aliased(queryTextField.describe('What to look for.'), 'query'),
    project_id: aliased(projectIdField.optional().describe('Only this project.'), 'project'),
    profile: profileNameField.default('default'),
    limit: aliased(limitField, 'k'),
  }),
  output,
  async handler(args, ctx) {
    const { profile, hits } = await ctx.services.teleology.searchGraph({ text: args.query_text, projectId: args.project_id, profile: args.profile, limit: args.limit });
    return {
      kind: 'search_graph:v1' as const,
      profile: profile.name,
      weights: profile.weights,
      hits: hits.map((h) => ({
        id: h.node.id,
        score: round4(h.score),
        fused: round4(h.fused),
        learning: h.learning === null ? null : round4(h.learning),
        spaces: h.signals,
        text: h.node.topic ? `${h.node.topic}: ${h.node.content}` : h.node.content,
        project_id: h.node.project_id,
      })),
      contract_markers: markersFor(hits.length),
    };
  },
  render(r) {
    return renderCards(
      'hit',
      `${r.hits.length} memor${r.hits.length === 1 ? 'y' : 'ies'} under profile ${r.profile}; cite them by [id].`,
      r.hits,
      (h) => `**[${h.id}]** score ${h.score} (fused ${h.fused}, L ${h.learning ?? '–'}) · spaces ${Object.keys(h.spaces).join(', ')}\n${quoteMemory(h.text)}`,
    );
  },
  resourceLinks: (_args, r) => entryLinks(r.hits),
});
