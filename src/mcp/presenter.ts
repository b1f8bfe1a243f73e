import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolErrorPayload } from '../errors.js';
import type { Format } from '../tools/kit/input.js';
import type { Invoked } from '../tools/kit/invoke.js';

type Block = CallToolResult['content'][number];

/**
 * A text block typed by MIME. `mimeType` on a text block is what seed 003 shows and what reaches
 * the raw wire, but the SDK client's text-content schema drops it on receipt; `_meta.mimeType`
 * is a surface every MCP client keeps, so a client can tell the JSON block from the markdown one
 * without parsing. Neither is required: the JSON block also parses as the tool's payload.
 */
function textBlock(text: string, mimeType: 'text/markdown' | 'application/json'): Block {
  return { type: 'text', text, mimeType, _meta: { mimeType } } as Block;
}

function markdownBlock(text: string): Block {
  return textBlock(text, 'text/markdown');
}

function jsonBlock(payload: unknown): Block {
  return textBlock(JSON.stringify(payload), 'application/json');
}

function resourceLink(uri: string): Block {
  return { type: 'resource_link', uri, name: uri.replace(/^knowledge:\/\//, ''), mimeType: 'application/json' };
}

/**
 * seed 003 format gating: markdown → markdown (and links to the resources the result is made
 * of, which carry no copy of the data); json → exactly one JSON block; both → markdown, links,
 * JSON last. structuredContent is always set and always equals the JSON payload.
 */
export function presentResult(result: Extract<Invoked, { status: 'ok' | 'needsInput' }>): CallToolResult {
  const links = result.status === 'ok' ? result.resourceLinks.map(resourceLink) : [];
  const { format, payload, markdown } = result;
  const content: Block[] =
    format === 'json' ? [jsonBlock(payload)] : format === 'markdown' ? [markdownBlock(markdown), ...links] : [markdownBlock(markdown), ...links, jsonBlock(payload)];
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
