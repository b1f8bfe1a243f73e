import * as z from 'zod';
import { COMPARABLE_SPACES } from '../../services/diagnostics/retrieval.js';
import { cited, citedIdSchema } from '../curation/cited.js';
import { aliased } from '../kit/aliases.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { boundedQueryField, projectIdField } from '../kit/fields.js';
import { inlineText } from '../kit/markdown.js';

const SPACES = COMPARABLE_SPACES;

const input = z.strictObject({
  query: boundedQueryField.describe('The query, 1–4,096 characters.'),
  spaces: z
    .array(z.enum(SPACES))
    .min(1)
    .max(SPACES.length)
    .describe(`Embedding spaces to rank with, each alone: ${SPACES.join(', ')}.`),
  top_k: z.number().int().min(1, 'must be at least 1').max(100, 'must be at most 100').default(10),
  project_id: aliased(projectIdField.optional().describe('Rank only this project.'), 'project'),
});

const output = z.object({
  kind: z.literal('retrievalComparison:v1'),
  query: z.string(),
  top_k: z.number().int(),
  rankings: z.array(
    z.object({
      space: z.string(),
      signal: z.string(),
      hits: z.array(citedIdSchema.extend({ rank: z.number().int(), score: z.number().describe('BM25 for E13, cosine for dense spaces.'), snippet: z.string() })),
    }),
  ),
  overlap: z
    .array(z.object({ a: z.string(), b: z.string(), shared: z.number().int(), jaccard: z.number() }))
    .describe('Per pair of spaces: shared memories in their top k, and |A∩B|/|A∪B|.'),
});

export const debugCompareRetrievalTool = defineTool({
  name: 'debug_compare_retrieval',
  title: 'Compare retrieval across spaces',
  description: `Rank a query in each asked embedding space alone (the candidate lists hybrid search fuses, with their raw scores) and show the rankings side by side with their pairwise overlap.
When to use: to see why search ranks a memory where it does, or which space finds what a query needs.
Example: {"query": "why did the deploy fail", "spaces": ["E1", "E13"]}
Advanced: {"query": "retry_backoff in payments.ts", "spaces": ["E1", "E5", "E7", "E13"], "top_k": 5, "project_id": "payments"}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    const r = await ctx.services.retrievalDiagnostics.compareSpaces({ query: args.query, spaces: args.spaces, topK: args.top_k, projectId: args.project_id });
    return {
      kind: 'retrievalComparison:v1' as const,
      query: args.query,
      top_k: args.top_k,
      rankings: r.rankings.map((k) => ({
        space: k.space,
        signal: k.signal,
        hits: k.hits.map((h) => ({
          ...cited(h.node.id),
          rank: h.rank,
          score: h.score,
          snippet: h.node.content.length > 120 ? `${h.node.content.slice(0, 120)}…` : h.node.content,
        })),
      })),
      overlap: r.overlap,
    };
  },
  render(r) {
    const lines = r.rankings.map(
      (k) =>
        `${k.space} (${k.signal}): ${k.hits.length ? k.hits.map((h) => `${h.rank}. ${h.citation} ${h.score.toFixed(3)} ${inlineText(h.snippet, 40)}`).join(' · ') : 'nothing'}`,
    );
    lines.push(...r.overlap.map((o) => `${o.a}∩${o.b}: ${o.shared} shared, Jaccard ${o.jaccard}`));
    return lines.join('\n');
  },
});
