import * as z from 'zod';
import { EXPORT_SECTIONS, MAX_EXPORT_PAGE } from '../../services/export.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { projectIdField, txIdField } from '../kit/fields.js';

const input = z.strictObject({
  section: z.enum(EXPORT_SECTIONS).describe('memories (entities and chunks included), edges, or transactions (the log).'),
  after: z.string().min(1).max(64).nullable().default(null).describe('`next` of the previous page; null for the first.'),
  limit: z.number().int().min(1).max(MAX_EXPORT_PAGE).default(500),
  project_id: projectIdField.optional().describe('Only this project (edges: by their source node).'),
  as_of_tx_id: txIdField.optional().describe('Read the state after this transaction; pass the same value on every page for one snapshot.'),
});

const output = z.object({
  kind: z.literal('export:v1'),
  section: z.enum(EXPORT_SECTIONS),
  lines: z.array(z.record(z.string(), z.unknown())).describe('One object per line of the JSONL export format.'),
  next: z.string().nullable().describe('Pass as `after` for the next page; null at the end.'),
  latest_tx_id: z.number().int().describe('The newest transaction when the page was read: pin it as as_of_tx_id for a consistent export.'),
});

export const exportPageTool = defineTool({
  name: 'export_page',
  title: 'Export a page of the store',
  description: `One keyset page of the export format (what \`context-graph export\` writes): memories with every field, edges, or transactions with their before/after images. Pages follow each other with \`after\` = the previous \`next\`.
When to use: to copy the store out page by page (backup, migration); use \`query\` or the resources to read memories.
Example: {"section": "memories"}
Advanced: {"section": "edges", "after": "01J9Z8Q4M6W2X7V5T3R1P0N8K6", "limit": 1000, "project_id": "payments", "as_of_tx_id": 4210}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    const page = await ctx.services.bulkExport.page(args.section, { after: args.after, limit: args.limit, projectId: args.project_id ?? null, asOfTxId: args.as_of_tx_id ?? null });
    const latest = await ctx.services.bulkExport.latestTxId();
    return { kind: 'export:v1' as const, section: args.section, lines: page.lines, next: page.next, latest_tx_id: latest };
  },
  render(r) {
    return `${r.lines.length} ${r.section} line${r.lines.length === 1 ? '' : 's'}${r.next ? `; next page after \`${r.next}\`` : '; end of section'}.`;
  },
});
