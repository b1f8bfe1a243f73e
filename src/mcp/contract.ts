import * as z from 'zod';
import { ALL_TOOLS } from '../tools/index.js';
import { needsInputSchema, toolErrorSchema } from '../tools/kit/payloads.js';
import { jobsPageSchema } from './resources/jobs.js';

/**
 * Every structured payload the server can send, keyed by its versioned `kind` (seed 003
 * discriminators): what clients and the contract tests validate JSON blocks against.
 */
export const toolPayloadSchema = z.discriminatedUnion('kind', [
  ...(ALL_TOOLS.map((t) => t.output) as unknown as [z.ZodObject, ...z.ZodObject[]]),
  needsInputSchema,
  toolErrorSchema,
] as unknown as [z.ZodObject<{ kind: z.ZodLiteral<string> }>, ...z.ZodObject<{ kind: z.ZodLiteral<string> }>[]]);

export type ToolPayload = z.output<typeof toolPayloadSchema>;

/** The payload schema of each kind, for the schemas resource (outputs are published by reference). */
export const PAYLOAD_SCHEMAS: ReadonlyMap<string, z.ZodObject> = new Map(
  [...ALL_TOOLS.map((t) => t.output), needsInputSchema, toolErrorSchema, jobsPageSchema].map((s) => [(s.shape as { kind: z.ZodLiteral<string> }).kind.value, s as z.ZodObject]),
);

/** Where the full JSON Schema of a payload kind is published (resources/read). */
export function schemaUri(kind: string): string {
  return `knowledge://schemas/${kind}`;
}
