import { textOf } from '../../services/project-kinds.js';
import * as z from 'zod';
import type { EntityView } from '../../services/projects.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { contractMarkersSchema, needsInput } from '../kit/payloads.js';
import { markersFor, renderCards } from '../kit/markdown.js';
import { DIFFICULTIES, difficultyField } from '../projects/schemas.js';

/**
 * seed 003's `search_patterns` over the patterns of the project model (pattern_create): all
 * matches in `patterns`, the first `limit` rendered as cards, and needsInput when the query is
 * empty or too broad.
 */

/** seed 003: more matches than this without a category or difficulty asks to narrow the search. */
export const SEARCH_TOO_BROAD_THRESHOLD = 20;
/** The most matches one search reads (the hybrid search's candidate ceiling). */
const MAX_MATCHES = 200;
/** A pattern that shares no word with the query still matches at this dense cosine. */
const SEMANTIC_MATCH = 0.6;

export const patternCardSchema = z.object({
  id: z.string(),
  title: z.string(),
  category: z.string().nullable(),
  difficulty: difficultyField.nullable(),
  description: z.string(),
  tags: z.array(z.string()),
});

const output = z.object({
  kind: z.literal('patternSearchResults:v1'),
  query: z.object({
    q: z.string().optional(),
    category: z.string().optional(),
    difficulty: difficultyField.optional(),
    limit: z.number().int().optional(),
    format: z.enum(['markdown', 'json', 'both']),
  }),
  metadata: z.object({
    totalCount: z.number().int(),
    categories: z.record(z.string(), z.number().int()),
    difficulties: z.record(z.string(), z.number().int()),
    renderedCards: z.number().int(),
    renderedCardIds: z.array(z.string()).describe('Always the first renderedCards ids of patterns.'),
    contractMarkers: contractMarkersSchema,
  }),
  patterns: z.array(patternCardSchema).describe('Every matching pattern (card summary); get_pattern has the full details.'),
});

export function cardOf(e: EntityView): z.output<typeof patternCardSchema> {
  return {
    id: e.id,
    title: String(e.name),
    category: typeof e.category === 'string' ? e.category : null,
    difficulty: (DIFFICULTIES as readonly unknown[]).includes(e.difficulty) ? (e.difficulty as (typeof DIFFICULTIES)[number]) : null,
    description: textOf(e.description),
    tags: e.tags,
  };
}

function histogram(values: ReadonlyArray<string | null>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) if (v !== null) out[v] = (out[v] ?? 0) + 1;
  return out;
}

const byCount = (h: Record<string, number>) =>
  Object.entries(h)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([k]) => k);

export const searchPatternsTool = defineTool({
  name: 'search_patterns',
  title: 'Search patterns (presentation contract)',
  description: `Find reusable patterns (stored with pattern_create) by words and meaning, optionally within a category or difficulty. Answers seed 003's patternSearchResults:v1: every match in \`patterns\` (card summaries), the first \`limit\` (default 3) rendered as cards with hidden index/card markers, category and difficulty counts. An empty query, or more than ${SEARCH_TOO_BROAD_THRESHOLD} matches without a filter, answers needsInput:v1 with suggestions from the stored patterns.
When to use: before solving a problem, to reuse what an earlier tide learned; use get_pattern for one pattern in full.
Example: {"q": "error handling"}
Advanced: {"q": "retry", "category": "error-handling", "difficulty": "intermediate", "limit": 5, "format": "both"}`,
  annotations: READ_ONLY,
  input: z.strictObject({
    q: z.string().max(4_096).optional().describe('What to look for; empty asks for a query.'),
    category: z.string().trim().min(1).max(64).optional().describe('Only patterns of this category.'),
    difficulty: difficultyField.optional(),
    limit: z.number().int().min(1).max(100).optional().describe('How many cards to render (default 3); `patterns` holds every match.'),
  }),
  output,
  mayNeedInput: true,
  async handler(args, ctx) {
    const q = args.q?.trim() ?? '';
    if (!q) {
      const known = await ctx.services.projects.list('pattern', { limit: 200 });
      const categories = byCount(histogram(known.map((p) => cardOf(p).category)));
      return needsInput({
        message: 'What pattern are you looking for? Please provide a search query.',
        needsInput: {
          fields: ['q'],
          reason: 'Search query is required to find relevant patterns',
          suggestions: { q: [...categories.slice(0, 4).map((c) => c.replace(/-/g, ' ')), ...known.slice(-4).map((p) => String(p.name))].slice(0, 6) },
        },
      });
    }
    const hits = await ctx.services.projectReports.search({ text: q, kinds: ['pattern'], limit: MAX_MATCHES, mode: 'hybrid' });
    const matches = hits
      .filter((h) => h.lexical || (h.similarity ?? 0) >= SEMANTIC_MATCH)
      .map((h) => cardOf(h.entity))
      .filter((c) => (args.category === undefined || c.category === args.category) && (args.difficulty === undefined || c.difficulty === args.difficulty));
    const categories = histogram(matches.map((m) => m.category));
    const difficulties = histogram(matches.map((m) => m.difficulty));
    if (matches.length > SEARCH_TOO_BROAD_THRESHOLD && args.category === undefined && args.difficulty === undefined) {
      const suggestions = { category: byCount(categories).slice(0, 8), difficulty: byCount(difficulties) };
      return needsInput({
        message: `Found ${matches.length} patterns. Would you like to narrow your search by category or difficulty?`,
        needsInput: { fields: ['category', 'difficulty'], reason: `Too many results (${matches.length}). Narrowing filters will help find the right pattern.`, suggestions },
        options: [
          ...suggestions.category.map((c) => ({ label: c, value: c, description: `Filter by ${c} category`, field: 'category' })),
          ...suggestions.difficulty.map((d) => ({ label: d, value: d, description: `Filter by ${d} difficulty`, field: 'difficulty' })),
        ],
      });
    }
    const rendered = matches.slice(0, args.limit ?? 3);
    return {
      kind: 'patternSearchResults:v1' as const,
      // Only what was asked is echoed (undefined keys omitted), plus the resolved format.
      query: {
        q,
        ...(args.category !== undefined ? { category: args.category } : {}),
        ...(args.difficulty !== undefined ? { difficulty: args.difficulty } : {}),
        ...(args.limit !== undefined ? { limit: args.limit } : {}),
        format: ctx.format ?? 'markdown',
      },
      metadata: {
        totalCount: matches.length,
        categories,
        difficulties,
        renderedCards: rendered.length,
        renderedCardIds: rendered.map((p) => p.id),
        contractMarkers: markersFor(rendered.length),
      },
      patterns: matches,
    };
  },
  render(r) {
    const cards = r.patterns.slice(0, r.metadata.renderedCards);
    return renderCards(
      'pattern',
      `# Search Results for "${r.query.q ?? ''}"\nFound **${r.metadata.totalCount}** pattern${r.metadata.totalCount === 1 ? '' : 's'}${cards.length < r.metadata.totalCount ? `; the first ${cards.length} below` : ''}.`,
      cards,
      (p) => `## ${p.title}\n\`${p.id}\`${p.category ? ` · ${p.category}` : ''}${p.difficulty ? ` · ${p.difficulty}` : ''}\n\n${p.description.slice(0, 400)}`,
    );
  },
});
