import * as z from 'zod';
import { markersFor, quoteMemory, renderCards } from '../../mcp/markdown.js';
import { contractMarkersSchema } from '../../mcp/payloads.js';
import { defineTool } from '../../mcp/tool.js';
import { isoDate, memoryTypeField, projectIdField, queryTextField } from './schemas.js';

const input = z.strictObject({
  query: queryTextField.describe('What to look for, in natural language or keywords.'),
  limit: z.number().int().min(1).max(50).default(5).describe('How many results, 1..50.'),
  project_id: projectIdField.optional().describe('Only this project; all projects when omitted.'),
});

const signalScore = z.object({ rank: z.number().int(), score: z.number() });

const output = z.object({
  kind: z.literal('entries:v1'),
  query: z.string(),
  items: z.array(
    z.object({
      id: z.string(),
      content: z.string(),
      topic: z.string().nullable(),
      project_id: z.string(),
      memory_type: memoryTypeField,
      tags: z.array(z.string()),
      created_at: isoDate,
      score: z.number().describe('Fused score in (0, 1].'),
      signals: z.record(z.string(), signalScore).describe('Rank and raw score per signal: lexical, E1, E9.'),
    }),
  ),
  contract_markers: contractMarkersSchema,
});

export const queryTool = defineTool({
  name: 'query',
  title: 'Query memories',
  toolset: 'memory',
  description: `Find memories by meaning and keywords (hybrid: full-text search fused with vector search).
When to use: before answering anything that may depend on earlier decisions, facts or preferences.
Example: {"query": "how do we deploy?"}
Advanced: {"query": "what did we decide about rollback thresholds for the payments service", "limit": 10, "project_id": "payments"}`,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input,
  output,
  async handler(args, ctx) {
    const hits = await ctx.app.search.hybrid({ text: args.query, limit: args.limit, projectId: args.project_id });
    return {
      kind: 'entries:v1' as const,
      query: args.query,
      items: hits.map((h) => ({
        id: h.node.id,
        content: h.node.content,
        topic: h.node.topic,
        project_id: h.node.project_id,
        memory_type: h.node.memory_type as z.output<typeof memoryTypeField>,
        tags: h.node.tags,
        created_at: h.node.created_at.toISOString(),
        score: h.score,
        signals: h.signals,
      })),
      contract_markers: markersFor(hits.length),
    };
  },
  render(r) {
    const heading = r.items.length === 0 ? `No memories match "${r.query}".` : `Found ${r.items.length} memor${r.items.length === 1 ? 'y' : 'ies'} for "${r.query}".`;
    return renderCards('entry', heading, r.items, (item) =>
      `**[${item.id}]** ${item.topic ? `${item.topic} · ` : ''}${item.project_id} · ${item.memory_type} · score ${item.score.toFixed(3)}\n${quoteMemory(item.content)}`,
    );
  },
  resourceUri: (args) => `knowledge://entries?query=${encodeURIComponent(args.query)}${args.project_id ? `&project_id=${encodeURIComponent(args.project_id)}` : ''}`,
});
