import * as z from 'zod';
import { CITATION_PATTERN, toNodeId } from '../../ids.js';
import { cited, citedIdSchema } from '../curation/cited.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { entryLinks, entrySchema, toEntry } from '../kit/entry.js';
import { quoteMemory } from '../kit/markdown.js';

const input = z.strictObject({
  citation_tag: z
    .string()
    .trim()
    .regex(CITATION_PATTERN, 'must be a citation tag like [node_0190f3a2c4e5b6d7e8f9a0b1c2d3e4f5]')
    .describe('A [node_<hex>] tag from a context string or card.'),
});

const output = z.object({
  kind: z.literal('citation:v1'),
  node: citedIdSchema,
  entry: entrySchema,
  annotations: z.record(z.string(), z.unknown()).describe('What annotate_node attached (domain, notes, related_concepts).'),
  merged_from: z.array(z.string()).describe('Sources, when the node came from merge_concepts.'),
});

export const hydrateCitationTool = defineTool({
  name: 'hydrate_citation',
  title: 'Expand a citation',
  description: `Expand a citation tag [node_<hex>] (as \`search\` contexts and cards cite memories) to the full memory: content, topic, tags, importance, validity, annotations and merge sources. An unknown or deleted node answers NODE_NOT_FOUND (-32012).
When to use: a context string was cut to its budget, or you need the exact text and metadata behind a citation before relying on it.
Example: {"citation_tag": "[node_0190f3a2c4e5b6d7e8f9a0b1c2d3e4f5]"}
Advanced: {"citation_tag": "[node_0190f3a2c4e5b6d7e8f9a0b1c2d3e4f5]", "format": "json"}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    const id = toNodeId(args.citation_tag);
    const node = await ctx.services.curation.liveNode(id);
    // Expanding a citation is evidence the memory was useful: an outcome of the retrieval that showed it.
    await ctx.services.signals.recordOutcomes(ctx, [node], 'hydrated');
    const mergedFrom = node.metadata.merged_from;
    return {
      kind: 'citation:v1' as const,
      node: cited(node.id),
      entry: toEntry(node),
      annotations: (node.metadata.annotations ?? {}) as Record<string, unknown>,
      merged_from: Array.isArray(mergedFrom) ? mergedFrom.filter((x): x is string => typeof x === 'string') : [],
    };
  },
  render(r) {
    const e = r.entry;
    return `${r.node.citation} \`${r.node.id}\`${e.topic ? ` · ${e.topic}` : ''} · ${e.project_id} · ${e.memory_type} · importance ${e.importance}${e.tags.length ? ` · ${e.tags.join(', ')}` : ''}\n${quoteMemory(e.content, 65_536)}`;
  },
  resourceLinks: (_args, r) => entryLinks([r.node]),
});
