import * as z from 'zod';
import { MAX_IMPORT_BATCH } from '../../services/import.js';
import { defineTool, IDEMPOTENT_WRITE } from '../kit/define.js';
import { projectIdField, tagsField } from '../kit/fields.js';

const input = z.strictObject({
  records: z
    .array(z.record(z.string(), z.unknown()))
    .min(1)
    .max(MAX_IMPORT_BATCH)
    .describe(
      `Up to ${MAX_IMPORT_BATCH} records, each {"type": "memory" | "edge" | "entity" | "relation" | "document", ...}: the lines of \`context-graph export\`, or entities/relations as the MCP memory server keeps them. Each is checked on its own; a bad one is reported by index and the rest go in.`,
    ),
  project_id: projectIdField.optional().describe('Put every record in this project (overrides the records’ own).'),
  tags: tagsField.optional().describe('Tags added to every memory and document.'),
  dry_run: z.boolean().default(false).describe('Count what would be inserted, updated, skipped and rejected; write nothing.'),
});

const output = z.object({
  kind: z.literal('import:v1'),
  tx_id: z.number().int().describe('0 when nothing changed or on a dry run.'),
  dry_run: z.boolean(),
  inserted: z.number().int(),
  updated: z.number().int(),
  skipped: z.number().int().describe('Already in the store (same id, or same content and topic in the project).'),
  rejected: z.number().int(),
  rejections: z.array(z.object({ index: z.number().int(), reason: z.string() })),
  embedding: z.object({ job_ids: z.array(z.string()) }),
});

export const importRecordsTool = defineTool({
  name: 'import_records',
  title: 'Import a batch of records',
  description: `Write a batch of records in one transaction (op \`import\`, undoable as a whole): memories (ids and times kept), edges, named entities, relations between entities, documents (chunked like \`push\`). Re-sending a batch skips what is already in, so an interrupted import can simply be run again.
When to use: bulk loading, as \`context-graph import\` does against a running server; use \`store\` or \`push\` for a single memory or document.
Example: {"records": [{"type": "memory", "content": "The deploy runs at 09:00 UTC."}]}
Advanced: {"records": [{"type": "entity", "name": "Ada", "entity_type": "person"}, {"type": "memory", "content": "Prefers tea", "observation_of": "Ada"}, {"type": "relation", "from": "Ada", "to": "Analytical Engine", "relation_type": "works_on"}], "project_id": "people", "dry_run": true}`,
  annotations: IDEMPOTENT_WRITE,
  input,
  output,
  async handler(args, ctx) {
    const r = await ctx.services.bulkImport.importBatch(args.records, { projectId: args.project_id, tags: args.tags, dryRun: args.dry_run, actor: ctx.actor });
    return {
      kind: 'import:v1' as const,
      tx_id: r.txId,
      dry_run: args.dry_run,
      inserted: r.inserted,
      updated: r.updated,
      skipped: r.skipped,
      rejected: r.rejected,
      rejections: r.rejections,
      embedding: { job_ids: r.jobIds },
    };
  },
  render(r) {
    const head = `${r.dry_run ? 'Dry run: would insert' : 'Imported:'} ${r.inserted} inserted, ${r.updated} updated, ${r.skipped} skipped, ${r.rejected} rejected${r.tx_id ? ` (transaction ${r.tx_id})` : ''}.`;
    return [head, ...r.rejections.slice(0, 20).map((x) => `- record ${x.index}: ${x.reason}`)].join('\n');
  },
});
