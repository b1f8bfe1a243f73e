import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolErrorPayload } from './errors.js';

export function presentResult(payload: Record<string, unknown>, markdown: string): CallToolResult {
  return {
    content: [{ type: 'text', text: markdown }],
    structuredContent: payload,
  };
}

/**
 * Errors carry the registry payload as a JSON text block rather than structuredContent: a
 * client validates structuredContent against the tool's outputSchema even on errors.
 */
export function presentError(payload: ToolErrorPayload): CallToolResult {
  const lines = [`**Error ${payload.code}** (${payload.retryable ? 'retryable' : 'not retryable'}): ${payload.message}`, '', payload.hint];
  return {
    content: [
      { type: 'text', text: lines.join('\n') },
      { type: 'text', text: JSON.stringify(payload) },
    ],
    isError: true,
  };
}
