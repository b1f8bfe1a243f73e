import * as z from 'zod';
import { LOG_COMPONENTS } from '../../log.js';
import { LOG_LEVELS } from '../../services/metacognition/logs.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { inlineText } from '../kit/markdown.js';

const COMPONENTS = ['all', ...LOG_COMPONENTS] as const;

const input = z.strictObject({
  level: z.enum(LOG_LEVELS).default('info').describe('Lines at this level or more severe.'),
  limit: z.number().int().min(1, 'must be at least 1').max(1_000, 'must be at most 1,000').default(100).describe('Newest lines, at most 1,000.'),
  component: z.enum(COMPONENTS).default('all').describe('storage, retrieval, curation, dream, gwt, or all.'),
});

const output = z.object({
  kind: z.literal('system_logs:v1'),
  entries: z.array(
    z.object({
      seq: z.number().int(),
      time: z.string(),
      level: z.string(),
      component: z.string().nullable(),
      msg: z.string(),
      fields: z.record(z.string(), z.unknown()),
    }),
  ),
  ring: z.object({
    enabled: z.boolean().describe('false: this process logs without the in-memory ring (a silent logger).'),
    lines: z.number().int().describe('Lines in the ring now.'),
    capacity: z.number().int(),
    written: z.number().int().describe('Lines written since the process started (older ones dropped).'),
  }),
});

export const getSystemLogsTool = defineTool({
  name: 'get_system_logs',
  title: 'Recent server logs',
  description: `The newest lines of this server process's logs from a bounded in-memory ring (debug and above, whatever stderr shows), filtered by level and component (storage: stored memories; retrieval: searches, with what was asked and found; curation: merges, boosts, forgets, restores; gwt: meta-cognition; dream). Secrets (tokens, passwords in URLs, authorization values) are removed before a line is kept. Only this process's logs: a distributed deployment has one ring per front end.
When to use: to answer "why don't you remember X?" — was it stored, what did the search find.
Example: {}
Advanced: {"level": "debug", "component": "retrieval", "limit": 20}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    const r = ctx.services.metacognition.logs({ level: args.level, limit: args.limit, component: args.component });
    return { kind: 'system_logs:v1' as const, entries: r.entries, ring: { enabled: r.ring, lines: r.scanned, capacity: r.kept, written: r.written } };
  },
  render(r) {
    if (!r.ring.enabled) return 'This process keeps no log ring (its logger is silent).';
    const lines = r.entries.map((e) => `- ${e.time} ${e.level}${e.component ? ` [${e.component}]` : ''} ${inlineText(e.msg)} ${inlineText(JSON.stringify(e.fields), 300)}`);
    return [`${r.entries.length} log line(s) (ring holds ${r.ring.lines} of ${r.ring.capacity}):`, ...lines].join('\n');
  },
});
