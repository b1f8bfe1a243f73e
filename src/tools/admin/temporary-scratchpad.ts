import * as z from 'zod';
import { AppError } from '../../errors.js';
import { SCRATCHPAD_MAX_BYTES, SCRATCHPAD_MAX_ENTRIES } from '../../services/diagnostics/scratchpad.js';
import { defineTool, WRITE } from '../kit/define.js';
import { inlineText, quoteMemory } from '../kit/markdown.js';

const input = z
  .strictObject({
    action: z.enum(['write', 'read', 'clear']),
    key: z.string().trim().min(1).max(128).optional().describe('Required for write; read and clear without a key cover every key.'),
    value: z.string().max(SCRATCHPAD_MAX_BYTES).optional().describe('The text to keep (write only).'),
  })
  .superRefine((a, ctx) => {
    if (a.action === 'write' && a.key === undefined) ctx.addIssue({ code: 'custom', path: ['key'], message: 'write needs a key' });
    if (a.action === 'write' && a.value === undefined) ctx.addIssue({ code: 'custom', path: ['value'], message: 'write needs a value' });
    if (a.action !== 'write' && a.value !== undefined) ctx.addIssue({ code: 'custom', path: ['value'], message: `${a.action} takes no value` });
  });

const output = z.object({
  kind: z.literal('scratchpad:v1'),
  action: z.enum(['write', 'read', 'clear']),
  entries: z
    .array(z.object({ key: z.string(), value: z.string(), bytes: z.number().int(), written_at: z.string() }))
    .describe('write: the entry written; read: the entries asked for; clear: none.'),
  replaced: z.boolean().nullable().describe('write: whether the key held a value before.'),
  cleared: z.number().int().nullable().describe('clear: how many keys went.'),
  usage: z.object({ entries: z.number().int(), bytes: z.number().int(), max_entries: z.number().int(), max_bytes: z.number().int() }),
});

export const temporaryScratchpadTool = defineTool({
  name: 'temporary_scratchpad',
  title: 'Session scratchpad',
  description: `Working memory for this MCP session only: write, read or clear short notes by key. Never stored in the graph or the transaction log, invisible to other sessions, gone when the session ends. Bounded: ${SCRATCHPAD_MAX_ENTRIES} keys and ${SCRATCHPAD_MAX_BYTES / 1024} KB (keys and values in UTF-8); a write past either bound is SCRATCHPAD_FULL (-32052) and changes nothing.
When to use: intermediate results of a multi-step task (a plan, ids to revisit) that should not become memories.
Example: {"action": "write", "key": "plan", "value": "1. search deploys 2. merge duplicates"}
Advanced: {"action": "read"}`,
  annotations: WRITE,
  input,
  output,
  async handler(args, ctx) {
    const pad = ctx.scratchpad;
    if (!pad) throw new AppError('SESSION_REQUIRED', 'temporary_scratchpad keeps state per MCP session; this call has none.');
    if (args.action === 'write') {
      const { entry, replaced } = pad.write(args.key!, args.value!);
      return { kind: 'scratchpad:v1' as const, action: args.action, entries: [entry], replaced, cleared: null, usage: pad.usage() };
    }
    if (args.action === 'read') return { kind: 'scratchpad:v1' as const, action: args.action, entries: pad.read(args.key), replaced: null, cleared: null, usage: pad.usage() };
    const cleared = pad.clear(args.key);
    return { kind: 'scratchpad:v1' as const, action: args.action, entries: [], replaced: null, cleared, usage: pad.usage() };
  },
  render(r) {
    const usage = `${r.usage.entries}/${r.usage.max_entries} keys, ${r.usage.bytes}/${r.usage.max_bytes} bytes`;
    if (r.action === 'clear') return `Cleared ${r.cleared} key(s); ${usage}.`;
    if (r.action === 'write') return `Wrote ${inlineText(r.entries[0]!.key)}${r.replaced ? ' (replaced)' : ''}; ${usage}.`;
    if (r.entries.length === 0) return `Nothing under that key; ${usage}.`;
    return [`${r.entries.length} entr${r.entries.length === 1 ? 'y' : 'ies'}; ${usage}.`, ...r.entries.map((e) => `${inlineText(e.key)}:\n${quoteMemory(e.value, 4_000)}`)].join(
      '\n',
    );
  },
});
