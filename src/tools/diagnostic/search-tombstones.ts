import * as z from 'zod';
import { RECOVERY_WINDOW_DAYS, RECOVERY_WINDOW_MS } from '../../services/curation.js';
import { cited, citedIdSchema } from '../curation/cited.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { boundedQueryField, instant, isoDate } from '../kit/fields.js';
import { quoteMemory } from '../kit/markdown.js';

const input = z.strictObject({
  query: boundedQueryField.optional().describe('Words the forgotten memory contains (full text or substring).'),
  deleted_after: instant().optional().describe('Only nodes deleted at or after this instant.'),
  limit: z.number().int().min(1, 'must be at least 1').max(100, 'must be at most 100').default(20),
});

const itemSchema = citedIdSchema.extend({
  content: z.string(),
  topic: z.string().nullable(),
  project_id: z.string(),
  deleted_at: isoDate,
  recoverable_until: isoDate,
  reason: z.string().nullable().describe('forget_concept reason, or "merge" for merged sources; null for plain deletes.'),
  reversal_hash: z.string().nullable().describe('For restore_from_hash; null for nodes deleted by `delete` (use `undo` with its tx_id).'),
  merged_into: z.string().nullable(),
});

const output = z.object({
  kind: z.literal('tombstones:v1'),
  items: z.array(itemSchema),
  window_start: isoDate.describe(`Deletions before this instant (${RECOVERY_WINDOW_DAYS} days ago) are past recovery and not listed.`),
});

export const searchTombstonesTool = defineTool({
  name: 'search_tombstones',
  title: 'Search tombstones',
  description: `List soft-deleted memories still inside the ${RECOVERY_WINDOW_DAYS}-day recovery window, newest deletion first, with why they went and the reversal_hash that restores each.
When to use: to audit what was forgotten or merged away, or to find the hash that brings a memory back.
Example: {}
Advanced: {"query": "staging cluster", "deleted_after": "2026-11-01T00:00:00Z", "limit": 50}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    const { items, windowStart } = await ctx.services.curation.tombstones({ query: args.query, deletedAfter: args.deleted_after, limit: args.limit });
    return {
      kind: 'tombstones:v1' as const,
      window_start: windowStart.toISOString(),
      items: items.map((t) => ({
        ...cited(t.node.id),
        content: t.node.content,
        topic: t.node.topic,
        project_id: t.node.project_id,
        deleted_at: t.node.deleted_at!.toISOString(),
        recoverable_until: new Date(t.node.deleted_at!.getTime() + RECOVERY_WINDOW_MS).toISOString(),
        reason: t.reason,
        reversal_hash: t.reversal_hash,
        merged_into: typeof t.node.metadata.merged_into === 'string' ? t.node.metadata.merged_into : null,
      })),
    };
  },
  render(r) {
    if (r.items.length === 0) return `No tombstones since ${r.window_start}.`;
    return [
      `${r.items.length} tombstone(s) within the recovery window:`,
      ...r.items.map(
        (t) =>
          `- ${t.citation} deleted ${t.deleted_at}${t.reason ? ` (${t.reason})` : ''}, recoverable until ${t.recoverable_until}${t.reversal_hash ? ` · restore_from_hash \`${t.reversal_hash}\`` : ''}\n${quoteMemory(t.topic ? `${t.topic}: ${t.content}` : t.content, 200)}`,
      ),
    ].join('\n');
  },
});
