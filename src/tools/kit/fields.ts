import * as z from 'zod';

/** Field schemas shared by the tools, with the bounds of seed 001 §3.7 and defaults of seed 004. */
export const MEMORY_TYPES = ['episodic', 'semantic', 'procedural'] as const;

export const contentField = z
  .string()
  .max(65_536, 'must be at most 65,536 characters')
  .refine((s) => s.trim().length > 0, 'must not be empty or only white space');
/** Empty is allowed here on purpose: an empty query is answered with needsInput, not an error. */
export const queryTextField = z.string().max(4_096, 'must be at most 4,096 characters');
export const projectIdField = z
  .string()
  .trim()
  .min(1)
  .max(128)
  .regex(/^[\w.:@/-]+$/, 'letters, digits and . _ : @ / - only');
export const memoryTypeField = z.enum(MEMORY_TYPES);
export const tagsField = z.array(z.string().trim().min(1).max(64)).max(32);
export const unitInterval = z.number().min(0).max(1);
export const limitField = z.number().int().min(1).max(50).default(5).describe('How many results.');
export const scoreThresholdField = unitInterval.default(0.25).describe('Minimum score; weaker hits are dropped.');
export const txIdField = z.number().int().min(1);
export const rationaleField = z.string().trim().max(1_000).describe('Why, recorded in the history.');

/** An ISO 8601 timestamp in an output payload. */
export const isoDate = z.string().describe('ISO 8601 timestamp');

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
/** Instances of the instant schema, so the JSON Schema writer can publish them compactly. */
export const INSTANT_SCHEMAS = new WeakSet<z.ZodType>();

/**
 * The one date input: an ISO 8601 date-time with offset (`2026-11-01T09:30:00Z`) or a calendar
 * date (`2026-11-01`, midnight UTC), checked for real calendar days and four-digit years, and
 * handed to services as a Date. Every tool's dates go through here, so a bad date is always
 * INVALID_PARAMS and never reaches SQL.
 */
export function instant() {
  const schema = z
    .union([z.iso.datetime({ offset: true }), z.iso.date()], { error: 'must be an ISO 8601 date-time (2026-11-01T09:30:00Z) or date (2026-11-01)' })
    .transform((s) => new Date(DATE_ONLY.test(s) ? `${s}T00:00:00Z` : s));
  INSTANT_SCHEMAS.add(schema);
  return schema;
}

export const timeRangeField = z
  .strictObject({ start: instant().optional(), end: instant().optional() })
  .refine((r) => !r.start || !r.end || r.start.getTime() <= r.end.getTime(), 'start must not be after end')
  .describe('Only memories recorded in [start, end].');

/** The filters `query` and `search` share, as echoed back in `used_filters`. */
export const usedFiltersSchema = z.object({
  project_id: z.string().nullable(),
  memory_type: memoryTypeField.nullable(),
  tags: z.array(z.string()).nullable(),
  topic: z.string().nullable(),
  time_range: z.object({ start: z.string().nullable(), end: z.string().nullable() }).nullable(),
});

export interface FilterArgs {
  project_id?: string | undefined;
  memory_type?: string | undefined;
  tags?: string[] | undefined;
  topic?: string | undefined;
  time_range?: { start?: Date | undefined; end?: Date | undefined } | undefined;
}

export function toFilters(args: FilterArgs) {
  return {
    service: {
      projectId: args.project_id,
      memoryType: args.memory_type,
      tags: args.tags,
      topic: args.topic,
      timeRange: args.time_range ? { start: args.time_range.start, end: args.time_range.end } : undefined,
      excludeKinds: ['entity'],
    },
    used: {
      project_id: args.project_id ?? null,
      memory_type: (args.memory_type ?? null) as z.output<typeof memoryTypeField> | null,
      tags: args.tags?.length ? args.tags : null,
      topic: args.topic ?? null,
      time_range: args.time_range ? { start: args.time_range.start?.toISOString() ?? null, end: args.time_range.end?.toISOString() ?? null } : null,
    },
  };
}
