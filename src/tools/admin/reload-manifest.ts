import * as z from 'zod';
import { cited, citedIdSchema } from '../curation/cited.js';
import { aliased } from '../kit/aliases.js';
import { defineTool, IDEMPOTENT_WRITE } from '../kit/define.js';
import { projectIdField } from '../kit/fields.js';
import { inlineText } from '../kit/markdown.js';

const input = z.strictObject({
  path: z
    .string()
    .trim()
    .min(1)
    .max(4_096)
    .optional()
    .describe('The manifest file (default: the configured one, ~/.context-graph/manifest.md); only files under its folder or the data directory are read.'),
  project_id: aliased(projectIdField.default('default').describe('The project the pinned memories belong to.'), 'project'),
});

const itemSchema = citedIdSchema.extend({ section: z.string().nullable(), content: z.string() });

const output = z.object({
  kind: z.literal('manifestReload:v1'),
  path: z.string(),
  tx_id: z.number().int().nullable().describe('The one transaction of the reload (`undo` reverts it); null when nothing changed.'),
  items: z.number().int(),
  added: z.array(itemSchema),
  changed: z.array(itemSchema),
  removed: z.array(itemSchema),
  unchanged: z.number().int(),
});

const item = (n: { id: string; topic: string | null; content: string }) => ({ ...cited(n.id), section: n.topic, content: n.content });

export const reloadManifestTool = defineTool({
  name: 'reload_manifest',
  title: 'Reload the user manifest',
  description: `Read the user manifest (markdown: list items under headings such as Goals, Preferences, Facts; an item may start with [key] to keep its identity across edits) and make its items pinned memories (topic = heading, importance 1): items new in the file are added, edited ones changed, gone ones removed, all in ONE transaction that \`undo\` reverts. Paths outside the manifest's folder and the data directory are refused (PATH_NOT_ALLOWED, -32050); a missing file is MANIFEST_NOT_FOUND (-32051).
When to use: after editing the manifest file, so the agent's standing goals and preferences match it.
Example: {}
Advanced: {"path": "~/.context-graph/team-manifest.md", "project_id": "team-x"}`,
  annotations: IDEMPOTENT_WRITE,
  input,
  output,
  async handler(args, ctx) {
    const r = await ctx.services.manifest.reload({ path: args.path, projectId: args.project_id, actor: ctx.actor });
    return {
      kind: 'manifestReload:v1' as const,
      path: r.path,
      tx_id: r.txId,
      items: r.items,
      added: r.added.map(item),
      changed: r.changed.map(item),
      removed: r.removed.map(item),
      unchanged: r.unchanged,
    };
  },
  render(r) {
    const list = (label: string, xs: z.output<typeof itemSchema>[]) =>
      xs.length ? [`${label}:`, ...xs.map((x) => `- ${x.citation} ${inlineText(x.section ?? '', 40)}: ${inlineText(x.content, 120)}`)] : [];
    return [
      `Manifest ${inlineText(r.path, 300)}: ${r.items} items; ${r.added.length} added, ${r.changed.length} changed, ${r.removed.length} removed, ${r.unchanged} unchanged${r.tx_id ? ` in transaction ${r.tx_id}` : ''}.`,
      ...list('Added', r.added),
      ...list('Changed', r.changed),
      ...list('Removed', r.removed),
    ].join('\n');
  },
});
