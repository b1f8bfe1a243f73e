import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolErrorPayload } from './errors.js';
import type { Format } from './input.js';

type Block = CallToolResult['content'][number];

function markdownBlock(text: string): Block {
  // mimeType is best effort (seed 003): some clients strip it, none rely on it.
  return { type: 'text', text, mimeType: 'text/markdown' } as Block;
}

function jsonBlock(payload: unknown): Block {
  return { type: 'text', text: JSON.stringify(payload), mimeType: 'application/json' } as Block;
}

/**
 * seed 003 format gating plus the seed 000 embedded resource: markdown → markdown + resource;
 * json → resource + one JSON block; both → markdown, resource, JSON last. structuredContent is
 * always set and always equals the JSON block.
 */
export function presentResult(payload: Record<string, unknown>, markdown: string, format: Format, resourceUri: string): CallToolResult {
  const resource: Block = { type: 'resource', resource: { uri: resourceUri, mimeType: 'application/json', text: JSON.stringify(payload) } };
  const content: Block[] =
    format === 'markdown' ? [markdownBlock(markdown), resource] : format === 'json' ? [resource, jsonBlock(payload)] : [markdownBlock(markdown), resource, jsonBlock(payload)];
  return { content, structuredContent: payload };
}

/**
 * Errors carry the registry payload as a JSON block rather than structuredContent: a client
 * validates structuredContent against the tool's outputSchema even on errors.
 */
export function presentError(payload: ToolErrorPayload, format: Format = 'both'): CallToolResult {
  const text = `**Error ${payload.code}** (${payload.retryable ? 'retryable' : 'not retryable'}): ${payload.message}\n\n${payload.hint}`;
  // The JSON block is the machine contract of an error, so it is sent whatever the format.
  return { content: format === 'json' ? [jsonBlock(payload)] : [markdownBlock(text), jsonBlock(payload)], isError: true };
}

export function renderNeedsInput(p: { message: string; needsInput: { fields: string[]; reason: string; suggestions?: Record<string, string[]> | undefined } }): string {
  const lines = ['<!-- kind:needs-input:v1 -->', '## Input needed', '', p.message, '', `_${p.needsInput.reason}_`];
  for (const [field, values] of Object.entries(p.needsInput.suggestions ?? {})) {
    if (values.length) lines.push('', `**${field}**: ${values.map((v) => `\`${v}\``).join(', ')}`);
  }
  return lines.join('\n');
}
