import * as z from 'zod';
import { INSTANT_SCHEMAS } from './fields.js';
import { aliasMap, isStringArray } from './input.js';

type Json = Record<string, unknown>;

const SAFE = Number.MAX_SAFE_INTEGER;

/**
 * JSON Schema of a zod schema as published to clients: no `$schema`, dates as one short
 * string description instead of zod's long calendar regex, and no ±2^53 bounds on integers
 * (they say nothing and cost bytes in every tools/list).
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    override(ctx) {
      const json = ctx.jsonSchema as Json;
      if (INSTANT_SCHEMAS.has(ctx.zodSchema as unknown as z.ZodType)) {
        for (const key of Object.keys(json)) delete json[key];
        Object.assign(json, { type: 'string', description: 'ISO 8601 date-time or date' });
      }
      if (json.minimum === -SAFE) delete json.minimum;
      if (json.maximum === SAFE) delete json.maximum;
    },
  }) as Json;
  return rest;
}

/**
 * The input schema a client sees: what the server accepts, aliases and coercions included,
 * so a client that validates strictly never refuses a call the docs show.
 */
export function publishedInputSchema(call: z.ZodObject<Record<string, z.ZodType>>): Json {
  const json = jsonSchemaOf(call, 'input');
  const properties = json.properties as Record<string, Json>;
  for (const [name, schema] of Object.entries(call.shape)) {
    const prop = properties[name];
    if (prop && isStringArray(schema)) {
      const { description, default: dflt, ...list } = prop;
      properties[name] = { ...(description ? { description } : {}), ...(dflt !== undefined ? { default: dflt } : {}), anyOf: [list, list.items] };
    }
  }
  const required = new Set((json.required as string[] | undefined) ?? []);
  const eitherOr: Json[] = [];
  for (const [alias, field] of aliasMap(call.shape)) {
    if (!(alias in properties)) properties[alias] = { description: `Alias of ${field}.` };
    // A required field may arrive under its alias instead.
    if (required.delete(field)) eitherOr.push({ anyOf: [{ required: [field] }, { required: [alias] }] });
  }
  if (eitherOr.length) {
    json.required = [...required];
    json.allOf = eitherOr;
  }
  return json;
}
