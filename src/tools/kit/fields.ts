import * as z from 'zod';
import { toNodeId } from '../../ids.js';
import { COLLECTION_NAME } from '../../services/collections.js';

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
/**
 * A reference to an existing collection (a namespace inside a project; 'default' always exists,
 * others come from new_collection). Kept bare because core tools take it and the default tool
 * list has a budget: a name that does not exist answers INVALID_PARAMS listing the existing ones.
 */
export const collectionRefField = z.string().max(64);
/** A collection name as new_collection creates it. */
export const collectionField = z.string().trim().min(1).max(COLLECTION_NAME.max).regex(COLLECTION_NAME.pattern, COLLECTION_NAME.rule);
export const tagsField = z.array(z.string().trim().min(1).max(64)).max(32);
export const unitInterval = z.number().min(0).max(1);
export const limitField = z.number().int().min(1).max(50).default(5).describe('How many results.');
export const scoreThresholdField = unitInterval.default(0.25).describe('Minimum score; weaker hits are dropped.');
export const txIdField = z.number().int().min(1);
export const rationaleField = z.string().trim().max(1_000).describe('Why, recorded in the history.');

/** Rationale fields whose absence is MISSING_RATIONALE (-32009) rather than INVALID_PARAMS (invoke.ts). */
export const RATIONALE_SCHEMAS = new WeakSet<z.ZodType>();

/** A required rationale, 10–1,000 characters (seed 001 §3.7): absent or blank answers MISSING_RATIONALE. */
export function rationale(description = 'Why, 10–1,000 characters; recorded in the history and the node lineage.') {
  const schema = z.string().trim().min(10, 'must be at least 10 characters').max(1_000, 'must be at most 1,000 characters').describe(description);
  RATIONALE_SCHEMAS.add(schema);
  return schema;
}

/** A 1–4,096 character query (seed 001 §3.7). */
export const boundedQueryField = z.string().trim().min(1, 'must not be empty').max(4_096, 'must be at most 4,096 characters');

/**
 * A node id in any form it is shown: the ULID, its citation `[node_<32 hex>]` (with or without
 * `node_` and brackets), or the same 128 bits as a UUID string; handlers receive the ULID.
 */
export const nodeIdField = z.string().trim().min(1).max(128).transform(toNodeId).describe('Node id: ULID, citation tag [node_<hex>] or UUID.');

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
  collection: z.string().nullable(),
  memory_type: memoryTypeField.nullable(),
  tags: z.array(z.string()).nullable(),
  topic: z.string().nullable(),
  time_range: z.object({ start: z.string().nullable(), end: z.string().nullable() }).nullable(),
});

export interface FilterArgs {
  project_id?: string | undefined;
  collection?: string | undefined;
  memory_type?: string | undefined;
  tags?: string[] | undefined;
  topic?: string | undefined;
  time_range?: { start?: Date | undefined; end?: Date | undefined } | undefined;
}

export function toFilters(args: FilterArgs) {
  return {
    service: {
      projectId: args.project_id,
      collection: args.collection,
      memoryType: args.memory_type,
      tags: args.tags,
      topic: args.topic,
      timeRange: args.time_range ? { start: args.time_range.start, end: args.time_range.end } : undefined,
      excludeKinds: ['entity'],
    },
    used: {
      project_id: args.project_id ?? null,
      collection: args.collection ?? null,
      memory_type: (args.memory_type ?? null) as z.output<typeof memoryTypeField> | null,
      tags: args.tags?.length ? args.tags : null,
      topic: args.topic ?? null,
      time_range: args.time_range ? { start: args.time_range.start?.toISOString() ?? null, end: args.time_range.end?.toISOString() ?? null } : null,
    },
  };
}
