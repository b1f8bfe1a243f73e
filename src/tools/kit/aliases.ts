import type * as z from 'zod';

/**
 * seed 004 aliases, declared on the field they name: `aliased(projectIdField, 'project')`.
 * The kit renames an alias to its field before validation and publishes it in the input
 * schema, so strict clients accept what the server accepts.
 */
const ALIASES = new WeakMap<z.ZodType, readonly string[]>();

export function aliased<T extends z.ZodType>(schema: T, ...aliases: string[]): T {
  // Aliases live on the schema object: a shared field (limitField, ...) aliased twice would take
  // the last tool's names for every tool. Each tool aliases its own copy (`field.describe(...)`).
  const earlier = ALIASES.get(schema);
  if (earlier && earlier.join() !== aliases.join())
    throw new Error(`aliased(): this field already has aliases ${earlier.join(', ')}; alias a copy of it (field.describe(...)) for ${aliases.join(', ')}`);
  ALIASES.set(schema, aliases);
  return schema;
}

export function aliasesOf(schema: z.ZodType): readonly string[] {
  return ALIASES.get(schema) ?? [];
}
