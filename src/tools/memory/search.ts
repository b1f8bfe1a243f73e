import * as z from 'zod';
import { markersFor, quoteMemory, renderCards } from '../kit/markdown.js';
import { contractMarkersSchema, needsInput } from '../kit/payloads.js';
import { aliased } from '../kit/aliases.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { entryLinks } from '../kit/entry.js';
import { limitField, memoryTypeField, projectIdField, queryTextField, scoreThresholdField, tagsField, timeRangeField, toFilters, usedFiltersSchema } from '../kit/fields.js';

/** The context string stays prompt-sized whatever the hits' lengths. */
export const CONTEXT_BUDGET_CHARS = 6_000;

const input = z.strictObject({
  query_text: aliased(queryTextField.describe('What to look for.'), 'query'),
  project_id: aliased(projectIdField.optional().describe('Only this project.'), 'project'),
  memory_type: aliased(memoryTypeField.optional().describe('Only this type.'), 'type'),
  tags: tagsField.optional().describe('Hits carry at least one of these tags.'),
  time_range: timeRangeField.optional(),
  limit: aliased(limitField, 'k'),
  score_threshold: scoreThresholdField,
});

const hitSchema = z.object({
  id: z.string(),
  score: z.number(),
  text: z.string(),
  project_id: z.string(),
  memory_type: memoryTypeField,
  tags: z.array(z.string()),
  timestamp: z.string().describe('When the memory was recorded (ISO 8601).'),
  source_uri: z.string().nullable(),
  superseded_by: z.string().nullable().describe('The entry that replaced this fact, if one did; such hits rank lower.'),
});

const output = z.object({
  kind: z.literal('search:v1'),
  hits: z.array(hitSchema),
  context: z.string().describe('Prompt-ready text: each hit as "[id] text", best first.'),
  used_filters: usedFiltersSchema,
  limit: z.number().int(),
  score_threshold: z.number(),
  contract_markers: contractMarkersSchema,
});
type Hit = z.output<typeof hitSchema>;

/** Joins hits as `[id] text` blocks, best first, cutting the last one to the budget. */
export function buildContext(hits: readonly Hit[], budget = CONTEXT_BUDGET_CHARS): string {
  const parts: string[] = [];
  let used = 0;
  for (const hit of hits) {
    const block = `[${hit.id}] ${hit.text.replace(/\s+/g, ' ').trim()}`;
    const room = budget - used - (parts.length ? 2 : 0);
    if (room <= 40) break;
    parts.push(block.length > room ? `${block.slice(0, room - 1)}…` : block);
    used += parts[parts.length - 1]!.length + (parts.length > 1 ? 2 : 0);
  }
  return parts.join('\n\n');
}

export const searchTool = defineTool({
  name: 'search',
  title: 'Search with context',
  description: `Retrieve memories with filters and get a prompt-ready \`context\` string that cites each memory inline as [id].
When to use: to ground an answer in what was stored; paste \`context\` into your reasoning and cite the [id]s.
Filters: project_id, memory_type, tags (contains-any), time_range; hits below score_threshold (default 0.25) are dropped.
Example: {"query_text": "database backup schedule"}
Advanced: {"query_text": "what did Alice decide about retries", "project_id": "payments", "memory_type": "episodic", "tags": ["decision", "retries"], "time_range": {"start": "2026-11-01T00:00:00Z", "end": "2026-11-08T00:00:00Z"}, "limit": 10, "score_threshold": 0.3}`,
  annotations: READ_ONLY,
  input,
  output,
  mayNeedInput: true,
  async handler(args, ctx) {
    const text = args.query_text.trim();
    if (!text) {
      const topics = await ctx.services.reads.recentTopics();
      return needsInput({
        message: 'What should I search for?',
        needsInput: { fields: ['query_text'], reason: 'A query is required to search.', suggestions: { query_text: topics } },
      });
    }
    const { service, used } = toFilters(args);
    const { hits } = await ctx.services.search.hybrid({ text, limit: args.limit, scoreThreshold: args.score_threshold, ...service });
    const out: Hit[] = hits.map((h) => ({
      id: h.node.id,
      score: h.score,
      text: h.node.topic ? `${h.node.topic}: ${h.node.content}` : h.node.content,
      project_id: h.node.project_id,
      memory_type: h.node.memory_type as Hit['memory_type'],
      tags: h.node.tags,
      timestamp: h.node.created_at.toISOString(),
      superseded_by: typeof h.node.metadata.superseded_by === 'string' ? h.node.metadata.superseded_by : null,
      source_uri: h.node.source_uri,
    }));
    return {
      kind: 'search:v1' as const,
      hits: out,
      context: buildContext(out),
      used_filters: used,
      limit: args.limit,
      score_threshold: args.score_threshold,
      contract_markers: markersFor(out.length),
    };
  },
  render(r) {
    const heading = r.hits.length === 0 ? 'No memories above the score threshold.' : `${r.hits.length} memor${r.hits.length === 1 ? 'y' : 'ies'}; cite them by [id].`;
    return renderCards(
      'hit',
      heading,
      r.hits,
      (h) =>
        `**[${h.id}]** score ${h.score.toFixed(3)} · ${h.project_id} · ${h.memory_type}${h.tags.length ? ` · ${h.tags.join(', ')}` : ''}${h.superseded_by ? ` · superseded by \`${h.superseded_by}\`` : ''}\n${quoteMemory(h.text)}`,
    );
  },
  resourceLinks: (_args, r) => entryLinks(r.hits),
});
