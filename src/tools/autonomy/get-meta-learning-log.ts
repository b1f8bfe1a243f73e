import * as z from 'zod';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { projectIdField } from '../kit/fields.js';
import { aliased } from '../kit/aliases.js';

const input = z.strictObject({
  project_id: aliased(projectIdField.optional().describe('One project; all when omitted.'), 'project'),
  limit: z.number().int().min(1).max(100).default(20).describe('Entries per page, 1..100.'),
  before_id: z.number().int().min(1).optional().describe('Page back: entries older than this id (next_before_id of the previous page).'),
});

const output = z.object({
  kind: z.literal('metaLearningLog:v1'),
  entries: z.array(z.object({ id: z.number().int(), project_id: z.string(), event: z.string(), at: z.string(), details: z.record(z.string(), z.unknown()) })),
  next_before_id: z.number().int().nullable(),
});

export const getMetaLearningLogTool = defineTool({
  name: 'get_meta_learning_log',
  title: 'What meta-UTL observed and changed',
  description: `The meta-learning log, newest first: every λ recalibration with its trigger, the λ and correlation before and after, the grid it searched and how many fingerprints it recomputed (or why it changed nothing).
When to use: to audit why L is weighted as it is, or when λ last moved.
Example: {}
Advanced: {"project_id": "team-x", "limit": 5, "before_id": 42}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    return { kind: 'metaLearningLog:v1' as const, ...(await ctx.services.metaUtl.log(args.project_id ?? null, args.limit, args.before_id ?? null)) };
  },
  render(r) {
    if (r.entries.length === 0) return 'The meta-learning log is empty.';
    return r.entries
      .map((e) => `- #${e.id} ${e.at} ${e.project_id} ${e.event}: ${typeof e.details['reason'] === 'string' ? e.details['reason'] : JSON.stringify(e.details).slice(0, 200)}`)
      .join('\n');
  },
});
