import * as z from 'zod';
import { markersFor, renderCards } from '../kit/markdown.js';
import { contractMarkersSchema } from '../kit/payloads.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { instant } from '../kit/fields.js';

const input = z.strictObject({
  entity_id: z.string().trim().min(1).max(128).optional().describe('Only transactions that touched this entry or relation id.'),
  op: z.string().trim().min(1).max(64).optional().describe('Only this operation: store, update, supersede, delete, undo, redo, relate...'),
  since: instant().optional().describe('ISO 8601: only transactions at or after this time.'),
  until: instant().optional().describe('ISO 8601: only transactions at or before this time.'),
  limit: z.number().int().min(1).max(100).default(20).describe('Page size, 1..100.'),
  cursor: z.string().max(512).optional().describe('next_cursor of the previous page.'),
});

const changeType = z.enum(['create', 'update', 'delete', 'restore']);

const output = z.object({
  kind: z.literal('history:v1'),
  as_of_tx_id: z.number().int().describe('Newest transaction the listing reflects; later pages keep it.'),
  items: z.array(
    z.object({
      tx_id: z.number().int(),
      op: z.string(),
      actor: z.string().nullable(),
      rationale: z.string().nullable(),
      created_at: z.string().describe('ISO 8601 timestamp'),
      reverted_by: z.number().int().nullable().describe('The transaction that reverted this one, if any.'),
      reverts: z.array(z.number().int()).describe('For undo/redo: the transactions it reverted.'),
      changes: z.array(z.object({ entity: z.string(), entity_id: z.string(), change_type: changeType })),
      changes_total: z.number().int().describe('All changes of the transaction; `changes` lists at most 50.'),
    }),
  ),
  next_cursor: z.string().nullable(),
  contract_markers: contractMarkersSchema,
});

export const historyTool = defineTool({
  name: 'history',
  title: 'Transaction history',
  description: `List transactions, newest first: what changed (entries and relations, created/updated/deleted/restored), by whom, why, and whether it was reverted. Paged with an opaque cursor that stays correct while writes happen.
When to use: to audit changes, find a tx_id to undo, or see how one entry evolved.
Example: {"limit": 10}
Advanced: {"entity_id": "01J9Z3K6Q4M8W2X5Y7R1T0V3AB", "op": "update", "since": "2026-03-01T00:00:00Z", "limit": 50}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    const page = await ctx.services.history.list({
      entityId: args.entity_id,
      op: args.op,
      since: args.since,
      until: args.until,
      limit: args.limit,
      cursor: args.cursor,
    });
    return { kind: 'history:v1' as const, ...page, contract_markers: markersFor(page.items.length) };
  },
  render(r) {
    const heading =
      r.items.length === 0
        ? 'No transactions match.'
        : `${r.items.length} transaction${r.items.length === 1 ? '' : 's'}, newest first${r.next_cursor ? ' (more with the next cursor)' : ''}.`;
    return renderCards('transaction', heading, r.items, (t) => {
      const head = `**tx ${t.tx_id}** · ${t.op} · ${t.created_at}${t.actor ? ` · ${t.actor}` : ''}${t.reverted_by ? ` · reverted by tx ${t.reverted_by}` : ''}${t.reverts.length ? ` · reverts tx ${t.reverts.join(', ')}` : ''}`;
      const why = t.rationale ? `\n_${t.rationale.replace(/[_*`]/g, '')}_` : '';
      const changes = t.changes.map((c) => `- ${c.entity} \`${c.entity_id}\`: ${c.change_type}`).join('\n');
      const more = t.changes_total > t.changes.length ? `\n- …and ${t.changes_total - t.changes.length} more` : '';
      return `${head}${why}\n${changes}${more}`;
    });
  },
  resourceLinks: () => ['knowledge://history/transactions'],
});
