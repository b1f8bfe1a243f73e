import * as z from 'zod';
import { AppError } from '../../errors.js';
import { aliasesOf } from './aliases.js';

export const FORMATS = ['markdown', 'json', 'both'] as const;
export type Format = (typeof FORMATS)[number];

// Undescribed on purpose: the three names say it, and every tool repeats the field.
export const formatField = z.enum(FORMATS).default('markdown');

// Undescribed, like `format`: every mutating tool repeats it and the core listing has a byte
// budget; its meaning (a retry with the same key answers the first result and changes nothing)
// is in the server instructions and the README. The bounds are a refinement for the same reason
// (a refinement is checked, not published).
export const idempotencyKeyField = z
  .string()
  .refine((k) => k.length >= 8 && k.length <= 128, 'an idempotency_key has 8 to 128 characters')
  .optional();

/** The schema a tool call is validated with: the tool's fields plus `format` (and `idempotency_key` for mutating tools). */
export function callSchema(input: z.ZodObject, opts: { idempotencyKey?: boolean } = {}): z.ZodObject {
  return input.extend(opts.idempotencyKey ? { idempotency_key: idempotencyKeyField, format: formatField } : { format: formatField });
}

/** Unwraps optional/default/nullable to the schema a field holds. */
function innermost(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (let i = 0; i < 8; i++) {
    const inner = (s as { def?: { innerType?: z.ZodType } }).def?.innerType;
    if (!inner) break;
    s = inner;
  }
  return s;
}

/** True for list-of-strings fields, where a lone string is accepted as a one-element list. */
export function isStringArray(schema: z.ZodType): boolean {
  const def = (innermost(schema) as { def?: { type?: string; element?: z.ZodType } }).def;
  return def?.type === 'array' && (innermost(def.element!) as { def?: { type?: string } }).def?.type === 'string';
}

/** alias → field, for the fields of one tool. */
export function aliasMap(shape: Record<string, z.ZodType>): Map<string, string> {
  const map = new Map<string, string>();
  for (const [field, schema] of Object.entries(shape)) for (const alias of aliasesOf(schema)) map.set(alias, field);
  return map;
}

/**
 * Renames aliases and coerces a lone string into a one-element list for string-array fields
 * (`tags: "ops"` → `["ops"]`). An alias applies only when the canonical name is absent.
 * Everything else is left to the strict schema, which rejects unknown keys with the allowed names.
 */
export function normalizeArgs(raw: unknown, shape: Record<string, z.ZodType>): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  rejectNul(raw, '');
  const out: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  for (const [alias, field] of aliasMap(shape)) {
    if (alias in out && !(field in out)) {
      out[field] = out[alias];
      delete out[alias];
    }
  }
  for (const [key, schema] of Object.entries(shape)) {
    if (typeof out[key] === 'string' && isStringArray(schema)) out[key] = [out[key]];
  }
  return out;
}

/** Postgres text cannot hold U+0000; refuse it up front as bad input rather than fail in SQL. */
function rejectNul(value: unknown, path: string, depth = 0): void {
  if (depth > 20) return;
  if (typeof value === 'string') {
    if (value.includes('\u0000'))
      throw new AppError('INVALID_PARAMS', `${path || '(arguments)'}: NUL characters (U+0000) are not allowed`, { issues: [{ path, message: 'NUL characters are not allowed' }] });
    return;
  }
  if (Array.isArray(value)) value.forEach((v, i) => rejectNul(v, `${path}.${i}`, depth + 1));
  else if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) rejectNul(v, path ? `${path}.${k}` : k, depth + 1);
}
