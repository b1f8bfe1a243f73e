import * as z from 'zod';
import { estimateTokens } from '../../services/metacognition/instructions.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { liveCatalog } from './live-catalog.js';

const output = z.object({
  kind: z.literal('system_instructions:v1'),
  text: z.string().describe('The mental model to keep in context (about 300 tokens).'),
  token_estimate: z.number().int(),
  tools_named: z.array(z.string()).describe('Tools the text names: all of them listed in this session.'),
  toolsets: z.array(z.object({ name: z.string(), enabled: z.boolean(), tools: z.array(z.string()) })),
  memories: z.number().int().describe('Live memories in the store now.'),
});

export const getSystemInstructionsTool = defineTool({
  name: 'get_system_instructions',
  title: 'Mental model of this server',
  description: `The ~300-token mental model of this memory server: what it stores, how to search, remember, curate and cite ([node_<hex>] tags), and which toolsets are on or one call away. Generated from the live tool registry and this session's toolsets, so it names only tools that exist and are listed.
When to use: at the start of a session, or after switching toolsets, to keep in context.
Example: {}
Advanced: {"format": "json"}`,
  annotations: READ_ONLY,
  input: z.strictObject({}),
  output,
  async handler(_args, ctx) {
    const catalog = liveCatalog(ctx);
    const r = await ctx.services.metacognition.instructions(catalog);
    return {
      kind: 'system_instructions:v1' as const,
      text: r.text,
      token_estimate: estimateTokens(r.text),
      tools_named: r.named,
      toolsets: catalog.toolsets.map((s) => ({ name: s.name, enabled: s.enabled, tools: s.tools })),
      memories: r.memories,
    };
  },
  render(r) {
    return r.text;
  },
});
