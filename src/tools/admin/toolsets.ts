import * as z from 'zod';
import { AppError } from '../../errors.js';
import { defineTool, IDEMPOTENT_WRITE } from '../kit/define.js';

const input = z.strictObject({
  enable: z.array(z.string().trim().min(1).max(64)).max(32).optional().describe('Toolsets to switch on for this session, or ["all"].'),
  disable: z.array(z.string().trim().min(1).max(64)).max(32).optional().describe('Toolsets to switch off for this session.'),
});

const output = z.object({
  kind: z.literal('toolsets:v1'),
  changed: z.array(z.string()).describe('Toolsets whose state this call changed; tools/list_changed was sent when not empty.'),
  toolsets: z.array(z.object({ name: z.string(), description: z.string(), enabled: z.boolean(), tools: z.array(z.string()) })),
});

export const toolsetsTool = defineTool({
  name: 'toolsets',
  title: 'List or switch toolsets',
  description: `List the toolsets (families of tools) and switch them on or off for this session; the tool list is then refreshed (tools/list_changed).
When to use: you need a tool that is not listed (graph, ingest, curation...). Without arguments it only lists.
Example: {}
Advanced: {"enable": ["graph", "ingest"], "disable": ["history"]}`,
  annotations: IDEMPOTENT_WRITE,
  // It switches this session's listing only: nothing to record a key with.
  idempotencyKey: false,
  input,
  output,
  async handler(args, ctx) {
    const known = new Set(ctx.toolsets.list().map((t) => t.name));
    const expand = (names: readonly string[] = []) => (names.includes('all') ? [...known] : names);
    const unknown = [...(args.enable ?? []), ...(args.disable ?? [])].filter((n) => n !== 'all' && !known.has(n));
    if (unknown.length) {
      throw new AppError('INVALID_PARAMS', `Unknown toolset ${unknown.map((n) => `"${n}"`).join(', ')}. Toolsets: ${[...known].join(', ')}.`, {
        issues: [{ path: 'enable', message: 'unknown toolset', allowed: [...known] }],
      });
    }
    const changed = [...(await ctx.toolsets.set(expand(args.enable), true)), ...(await ctx.toolsets.set(expand(args.disable), false))];
    return { kind: 'toolsets:v1' as const, changed, toolsets: ctx.toolsets.list() };
  },
  render(r) {
    const lines = r.toolsets.map((t) => `- ${t.enabled ? '**on**' : 'off'} \`${t.name}\`: ${t.description} (${t.tools.join(', ')})`);
    return `${r.changed.length ? `Switched ${r.changed.join(', ')}; the tool list is refreshed.\n\n` : ''}Toolsets:\n${lines.join('\n')}`;
  },
});
