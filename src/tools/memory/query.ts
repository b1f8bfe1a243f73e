import * as z from 'zod';
import { markersFor, quoteMemory, renderCards } from '../../mcp/markdown.js';
import { contractMarkersSchema, needsInput } from '../../mcp/payloads.js';
import { defineTool, type ToolContext } from '../../mcp/tool.js';
import { entriesUri, entrySchema, toEntry } from './entry.js';
import {
  limitField, memoryTypeField, projectIdField, queryTextField, scoreThresholdField, tagsField, timeRangeField, toFilters, txIdField, usedFiltersSchema,
} from './schemas.js';

/** seed 003: more matches than this with no filter at all asks the caller to narrow down. */
export const TOO_BROAD_THRESHOLD = 20;

const input = z.strictObject({
  query: queryTextField.optional().describe('What to look for, in natural language or keywords. Alias: query_text.'),
  id: z.string().trim().min(1).max(64).optional().describe('Fetch one entry by id instead of searching.'),
  topic: z.string().trim().min(1).max(256).optional().describe('Only entries with exactly this topic (case-insensitive); alone, lists them.'),
  project_id: projectIdField.optional().describe('Only this project. Alias: project.'),
  memory_type: memoryTypeField.optional().describe('Only this type. Alias: type.'),
  tags: tagsField.optional().describe('Only entries with at least one of these tags (a single string is accepted).'),
  time_range: timeRangeField.optional(),
  limit: limitField,
  score_threshold: scoreThresholdField,
  as_of_tx_id: txIdField.optional().describe('Answer with the entries as they were after this transaction.'),
});

const signalScore = z.object({ rank: z.number().int(), score: z.number() });

const output = z.object({
  kind: z.literal('entries:v1'),
  query: z.string().nullable(),
  as_of_tx_id: z.number().int().describe('The transaction the answer reflects.'),
  items: z.array(
    entrySchema.extend({
      score: z.number().nullable().describe('Fused score in (0, 1]; null for lookups by id or topic.'),
      signals: z.record(z.string(), signalScore).describe('Rank and raw score per signal: lexical, E1, E9.'),
    }),
  ),
  used_filters: usedFiltersSchema,
  next_cursor: z.string().nullable(),
  contract_markers: contractMarkersSchema,
});
type Output = z.output<typeof output>;
type Args = z.output<typeof input>;

async function byId(args: Args & { id: string }, ctx: ToolContext, asOf: number, used: Output['used_filters']) {
  const node = await ctx.app.reads.entry(args.id, args.as_of_tx_id);
  if (!node) {
    const suggestions = await ctx.app.reads.neighbouringIds(args.id);
    return needsInput({
      message: `No entry has the id "${args.id}".`,
      needsInput: { fields: ['id'], reason: `Entry "${args.id}" does not exist${args.as_of_tx_id ? ` as of transaction ${args.as_of_tx_id}` : ''}; these ids are the closest.`, suggestions: { id: suggestions } },
      options: suggestions.map((id) => ({ label: id, value: id, field: 'id', description: `Entry ${id}` })),
    });
  }
  return result(null, asOf, [{ ...toEntry(node), score: null, signals: {} }], used);
}

function result(query: string | null, asOf: number, items: Output['items'], used: Output['used_filters']): Output {
  return { kind: 'entries:v1', query, as_of_tx_id: asOf, items, used_filters: used, next_cursor: null, contract_markers: markersFor(items.length) };
}

export const queryTool = defineTool({
  name: 'query',
  title: 'Query memories',
  toolset: 'memory',
  description: `Find entries by meaning and keywords (hybrid: full text fused with vector search), by id, or by topic; optionally as they were after a past transaction.
When to use: before answering anything that may depend on earlier decisions, facts or preferences; use \`search\` when you want a prompt-ready context string.
If the query is empty, the id unknown, or more than ${TOO_BROAD_THRESHOLD} entries match with no filter, it answers needsInput:v1 with suggestions (or asks the client directly when it supports elicitation).
Example: {"query": "how do we deploy?"}
Advanced: {"query": "rollback thresholds", "project_id": "payments", "tags": ["ops"], "time_range": {"start": "2026-01-01T00:00:00Z"}, "limit": 10, "as_of_tx_id": 42, "format": "both"}`,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input,
  output,
  mayNeedInput: true,
  async handler(args, ctx) {
    const asOf = args.as_of_tx_id ?? (await ctx.app.reads.latestTxId());
    const { service: filters, used } = toFilters(args);
    if (args.id) return byId({ ...args, id: args.id }, ctx, asOf, used);
    const text = args.query?.trim() ?? '';
    if (!text && !args.topic) {
      const topics = await ctx.app.reads.recentTopics();
      return needsInput({
        message: 'What should I look for? Give a query (or a topic).',
        needsInput: { fields: ['query'], reason: 'A search query is required to find relevant memories.', suggestions: { query: topics } },
        options: topics.map((t) => ({ label: t, value: t, field: 'query', description: `Recent topic "${t}"` })),
      });
    }
    const hasFilter = Boolean(args.project_id || args.memory_type || args.tags?.length || args.topic || args.time_range);
    const searchText = text || args.topic!;
    const { hits, matched } = await ctx.app.search.hybrid({ text: searchText, limit: args.limit, scoreThreshold: text ? args.score_threshold : 0, ...filters });
    if (!hasFilter && matched > TOO_BROAD_THRESHOLD) {
      const wide = await ctx.app.search.hybrid({ text: searchText, limit: 200, scoreThreshold: args.score_threshold, ...filters });
      const d = ctx.app.reads.distribution(wide.hits.filter((h) => h.signals.lexical).map((h) => h.node));
      const suggestions = { project_id: d.project_id, memory_type: d.memory_type, tags: d.tags };
      return needsInput({
        message: `${matched} entries match "${text}". Narrow it down by project, type or tag?`,
        needsInput: { fields: ['project_id', 'memory_type', 'tags'], reason: `Too many matches (${matched}) without a filter.`, suggestions },
        options: Object.entries(suggestions).flatMap(([field, values]) => values.map((v) => ({ label: v, value: v, field, description: `Filter by ${field} ${v}` }))),
      });
    }
    const visible = args.as_of_tx_id ? await ctx.app.reads.asOf(hits, args.as_of_tx_id) : hits;
    return result(
      text || null,
      asOf,
      visible.map((h) => ({ ...toEntry(h.node), score: h.score, signals: h.signals })),
      used,
    );
  },
  render(r) {
    const heading = r.items.length === 0 ? `No entries match${r.query ? ` "${r.query}"` : ''}.` : `Found ${r.items.length} entr${r.items.length === 1 ? 'y' : 'ies'}${r.query ? ` for "${r.query}"` : ''} (as of transaction ${r.as_of_tx_id}).`;
    return renderCards('entry', heading, r.items, (item) =>
      `**[${item.id}]** ${item.topic ? `${item.topic} · ` : ''}${item.project_id} · ${item.memory_type}${item.score !== null ? ` · score ${item.score.toFixed(3)}` : ''}\n${quoteMemory(item.content)}`,
    );
  },
  // A readable resource: the entries resource with the filters it supports (the search text
  // itself travels in the payload).
  resourceUri: (args) => entriesUri(args),
});
