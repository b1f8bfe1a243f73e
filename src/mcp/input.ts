import * as z from 'zod';
import { AppError } from '../errors.js';

/**
 * seed 004 ergonomics: accepted alternative names. An alias applies only when the tool has the
 * target field and the caller did not also send the canonical name.
 */
export const GLOBAL_ALIASES: Readonly<Record<string, string>> = {
  type: 'memory_type',
  project: 'project_id',
  k: 'limit',
  query_text: 'query',
  query: 'query_text',
  text: 'content',
  content: 'text',
};

export const FORMATS = ['markdown', 'json', 'both'] as const;
export type Format = (typeof FORMATS)[number];

export const formatField = z
  .enum(FORMATS)
  .default('markdown')
  .describe('markdown (default): markdown blocks; json: one JSON block; both: markdown first, JSON last. structuredContent is always set.');

function isStringArray(schema: z.ZodType): boolean {
  let s: z.ZodType = schema;
  // Unwrap optional/default/nullable to reach the array.
  for (let i = 0; i < 5; i++) {
    const def = (s as { def?: { type?: string; innerType?: z.ZodType; element?: z.ZodType } }).def;
    if (!def) return false;
    if (def.type === 'array') return (def.element as { def?: { type?: string } } | undefined)?.def?.type === 'string';
    if (!def.innerType) return false;
    s = def.innerType;
  }
  return false;
}

/**
 * Renames aliases and coerces a lone string into a one-element list for string-array fields
 * (`tags: "ops"` → `["ops"]`). Everything else is left to the strict schema, which rejects
 * unknown keys with the allowed names.
 */
export function normalizeArgs(raw: unknown, shape: Record<string, z.ZodType>): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  rejectNul(raw, '');
  const out: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  for (const [alias, target] of Object.entries(GLOBAL_ALIASES)) {
    if (alias in out && !(alias in shape) && target in shape && !(target in out)) {
      out[target] = out[alias];
      delete out[alias];
    }
  }
  for (const [key, schema] of Object.entries(shape)) {
    if (typeof out[key] === 'string' && isStringArray(schema)) out[key] = [out[key]];
  }
  return out;
}

/** The schema a tool call is validated with: the tool's fields plus `format`. */
export function callSchema(input: z.ZodObject): z.ZodObject {
  return input.extend({ format: formatField });
}

/** Postgres text cannot hold U+0000; refuse it up front as bad input rather than fail in SQL. */
function rejectNul(value: unknown, path: string, depth = 0): void {
  if (depth > 20) return;
  if (typeof value === 'string') {
    if (value.includes('\u0000')) throw new AppError('INVALID_PARAMS', `${path || '(arguments)'}: NUL characters (U+0000) are not allowed`, { issues: [{ path, message: 'NUL characters are not allowed' }] });
    return;
  }
  if (Array.isArray(value)) value.forEach((v, i) => rejectNul(v, `${path}.${i}`, depth + 1));
  else if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) rejectNul(v, path ? `${path}.${k}` : k, depth + 1);
}
