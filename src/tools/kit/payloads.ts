import * as z from 'zod';
import { TOOL_ERROR_CODES, type ToolErrorCode } from '../../errors.js';
import { inlineText } from './markdown.js';

/** seed 003 §3: what a tool answers when it cannot go on without more input. */
export const needsInputSchema = z.object({
  kind: z.literal('needsInput:v1'),
  type: z.literal('elicitation'),
  message: z.string(),
  needsInput: z.object({
    fields: z.array(z.string()),
    reason: z.string(),
    suggestions: z.record(z.string(), z.array(z.string())).optional(),
  }),
  options: z.array(z.object({ label: z.string(), value: z.string(), description: z.string().optional(), field: z.string().optional() })).optional(),
});
export type NeedsInputPayload = z.output<typeof needsInputSchema>;

export const toolErrorSchema = z.object({
  kind: z.literal('toolError:v1'),
  code: z.enum(TOOL_ERROR_CODES as [ToolErrorCode, ...ToolErrorCode[]]),
  rpc_code: z.number().int(),
  message: z.string(),
  retryable: z.boolean(),
  hint: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});

/** Counts of the hidden markers in a markdown rendering (seed 003, contract markers). */
export const contractMarkersSchema = z.object({
  index: z.number().int(),
  cards: z.number().int(),
  version: z.literal('v1'),
});
export type ContractMarkers = z.output<typeof contractMarkersSchema>;

export function needsInput(p: Omit<NeedsInputPayload, 'kind' | 'type'>): NeedsInputPayload {
  return { kind: 'needsInput:v1', type: 'elicitation', ...p };
}

export function isNeedsInput(x: unknown): x is NeedsInputPayload {
  return typeof x === 'object' && x !== null && (x as { kind?: unknown }).kind === 'needsInput:v1';
}

export function renderNeedsInput(p: NeedsInputPayload): string {
  const lines = ['<!-- kind:needs-input:v1 -->', '## Input needed', '', p.message, '', `_${p.needsInput.reason}_`];
  for (const [field, values] of Object.entries(p.needsInput.suggestions ?? {})) {
    // Suggestions are often stored text (recent topics): one line each, every markup character escaped.
    if (values.length) lines.push('', `**${field}**: ${values.map((v) => inlineText(v, 120)).join(' · ')}`);
  }
  return lines.join('\n');
}
