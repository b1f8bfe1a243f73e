import * as z from 'zod';
import { KIND_OF_TABLE, PROJECT_KINDS, TABLE_OF, type ProjectKind } from '../../services/project-kinds.js';
import type { ProjectHit } from '../../services/project-reports.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { queryTextField, tagsField } from '../kit/fields.js';
import { renderCards } from '../kit/markdown.js';
import { difficultyField, jsonObject, patternSchema } from './schemas.js';

/** seed 002 §2.5–2.6: searches over the project-knowledge model, by meaning, by words and by tags. */

const TABLES = PROJECT_KINDS.map((k) => TABLE_OF[k]) as [string, ...string[]];
const tablesField = z.array(z.enum(TABLES)).max(5).optional().describe('Which families to search: phases, works, paths, tides, patterns (default: all).');
const queryField = queryTextField.refine((s) => s.trim().length > 0, 'must not be empty').describe('What to look for, in plain words.');
const searchLimit = z.number().int().min(1).max(50).default(10).describe('How many results.');

const hitSchema = z.object({
  table: z.enum(TABLES),
  id: z.string(),
  title: z.string(),
  similarity: z.number().nullable().describe('Dense (E1) cosine similarity, when the hit has one.'),
  score: z.number().describe('Fused hybrid score in (0, 1].'),
  lexical: z.boolean().describe('The hit shares a word with the query.'),
  entity: jsonObject.describe('The entity with every field (as its *_get tool answers it).'),
});

const kindsOf = (tables: readonly string[] | undefined): ProjectKind[] => (tables ?? []).map((t) => KIND_OF_TABLE[t]!);
const toHit = (h: ProjectHit) => ({ table: TABLE_OF[h.kind], id: h.id, title: h.title, similarity: h.similarity, score: h.score, lexical: h.lexical, entity: h.entity });

function renderHits(r: { hits: Array<z.output<typeof hitSchema>> }, by: 'similarity' | 'score'): string {
  return renderCards(
    'project-hit',
    `Found ${r.hits.length} relevant item${r.hits.length === 1 ? '' : 's'}:`,
    r.hits,
    (h, i) =>
      `${i + 1}. [${h.table.slice(0, -1).toUpperCase()}] ${h.id}: ${h.title.slice(0, 200)}\n   ${by === 'similarity' ? `Similarity: ${h.similarity ?? 'n/a'}` : `Score: ${h.score}`}`,
  );
}

export const searchSemanticTool = defineTool({
  name: 'search_semantic',
  title: 'Search the project model by meaning',
  description: `Search phases, works, paths, tides and patterns by meaning (dense embeddings of their text fields), ranked by cosine similarity. REST: \`search-semantic\`.
When to use: "have we done something like X before?" when the words may differ.
Example: {"query": "how to setup authentication", "tables": ["works", "patterns"], "limit": 5}
Advanced: {"query": "database migrations", "min_similarity": 0.3, "format": "json"}`,
  annotations: READ_ONLY,
  input: z.strictObject({
    query: queryField,
    tables: tablesField,
    limit: searchLimit,
    min_similarity: z.number().min(-1).max(1).default(0).describe('Drop hits below this cosine.'),
  }),
  output: z.object({ kind: z.literal('semanticResults:v1'), query: z.string(), tables: z.array(z.string()), hits: z.array(hitSchema) }),
  async handler(args, ctx) {
    const kinds = kindsOf(args.tables);
    const hits = await ctx.services.projectReports.search({ text: args.query, kinds, limit: args.limit, mode: 'semantic', minSimilarity: args.min_similarity });
    return { kind: 'semanticResults:v1' as const, query: args.query, tables: kinds.length ? args.tables! : TABLES, hits: hits.map(toHit) };
  },
  render: (r) => renderHits(r, 'similarity'),
});

export const searchHybridTool = defineTool({
  name: 'search_hybrid',
  title: 'Search the project model by words and meaning',
  description: `Hybrid search over the project model: BM25 keywords and dense embeddings fused (the same search as memory \`search\`), restricted to the families asked for. REST: \`search-hybrid\`.
When to use: the default project search; exact names and ids rank first, paraphrases still match.
Example: {"query": "PostgreSQL setup"}
Advanced: {"query": "retry transient errors", "tables": ["patterns", "tides"], "limit": 20}`,
  annotations: READ_ONLY,
  input: z.strictObject({ query: queryField, tables: tablesField, limit: searchLimit }),
  output: z.object({ kind: z.literal('hybridResults:v1'), query: z.string(), tables: z.array(z.string()), hits: z.array(hitSchema) }),
  async handler(args, ctx) {
    const kinds = kindsOf(args.tables);
    const hits = await ctx.services.projectReports.search({ text: args.query, kinds, limit: args.limit, mode: 'hybrid' });
    return { kind: 'hybridResults:v1' as const, query: args.query, tables: kinds.length ? args.tables! : TABLES, hits: hits.map(toHit) };
  },
  render: (r) => renderHits(r, 'score'),
});

export const searchByTagsTool = defineTool({
  name: 'search_by_tags',
  title: 'Find project entities by tags',
  description: `Phases, works, paths, tides and patterns carrying any (or all) of the tags, most recently updated first. REST: \`search-by-tags\`.
When to use: to gather everything labelled for one topic, release or team.
Example: {"tags": ["api"]}
Advanced: {"tags": ["api", "mvp"], "match_all": true, "tables": ["works"], "limit": 50}`,
  annotations: READ_ONLY,
  input: z.strictObject({
    tags: tagsField.min(1).describe('Tags to look for.'),
    match_all: z.boolean().default(false).describe('true: every tag must be present; false: any.'),
    tables: tablesField,
    limit: z.number().int().min(1).max(200).default(50),
  }),
  output: z.object({
    kind: z.literal('taggedResults:v1'),
    tags: z.array(z.string()),
    match_all: z.boolean(),
    count: z.number().int(),
    items: z.array(z.object({ table: z.enum(TABLES), id: z.string(), entity: jsonObject })),
  }),
  async handler(args, ctx) {
    const found = await ctx.services.projectReports.byTags({ tags: args.tags, kinds: kindsOf(args.tables), matchAll: args.match_all, limit: args.limit });
    const items = found.map((f) => ({ table: TABLE_OF[f.kind], id: f.entity.id, entity: f.entity }));
    return { kind: 'taggedResults:v1' as const, tags: args.tags, match_all: args.match_all, count: items.length, items };
  },
  render: (r) =>
    renderCards(
      'project-hit',
      `Found ${r.count} item${r.count === 1 ? '' : 's'} tagged ${r.tags.join(r.match_all ? ' and ' : ' or ')}:`,
      r.items,
      (h, i) => `${i + 1}. [${h.table.slice(0, -1).toUpperCase()}] ${h.id}`,
    ),
});

export const patternSearchTool = defineTool({
  name: 'pattern_search',
  title: 'Search patterns',
  description: `Hybrid search over patterns only, optionally within a category or difficulty. REST: \`pattern-search\`. (search_patterns answers the same search in seed 003's presentation contract.)
When to use: before solving a problem, to reuse a pattern harvested from an earlier tide.
Example: {"query": "retry"}
Advanced: {"query": "error handling", "category": "error-handling", "difficulty": "beginner", "limit": 5}`,
  annotations: READ_ONLY,
  input: z.strictObject({ query: queryField, category: z.string().trim().min(1).max(64).optional(), difficulty: difficultyField.optional(), limit: searchLimit }),
  output: z.object({ kind: z.literal('patternResults:v1'), query: z.string(), count: z.number().int(), patterns: z.array(patternSchema.extend({ score: z.number() })) }),
  async handler(args, ctx) {
    const hits = await ctx.services.projectReports.search({ text: args.query, kinds: ['pattern'], limit: 200, mode: 'hybrid' });
    const patterns = hits
      .filter((h) => (args.category === undefined || h.entity.category === args.category) && (args.difficulty === undefined || h.entity.difficulty === args.difficulty))
      .slice(0, args.limit)
      .map((h) => ({ ...h.entity, score: h.score }));
    return { kind: 'patternResults:v1' as const, query: args.query, count: patterns.length, patterns: patterns as never };
  },
  render: (r) => renderCards('pattern', `Found ${r.count} pattern${r.count === 1 ? '' : 's'}:`, r.patterns, (p, i) => `${i + 1}. ${p.pattern_id}: ${p.name} (score ${p.score})`),
});
