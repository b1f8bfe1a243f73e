import * as z from 'zod';

/** Field schemas shared by the memory tools, with the bounds of seed 001 §3.7 and defaults of seed 004. */
export const MEMORY_TYPES = ['episodic', 'semantic', 'procedural'] as const;

export const contentField = z.string().min(1, 'must not be empty').max(65_536, 'must be at most 65,536 characters');
/** Empty is allowed here on purpose: an empty query is answered with needsInput, not an error. */
export const queryTextField = z.string().max(4_096, 'must be at most 4,096 characters');
export const projectIdField = z.string().trim().min(1).max(128).regex(/^[\w.:@/-]+$/, 'letters, digits and . _ : @ / - only');
export const memoryTypeField = z.enum(MEMORY_TYPES);
export const tagsField = z.array(z.string().trim().min(1).max(64)).max(32);
export const unitInterval = z.number().min(0).max(1);
export const limitField = z.number().int().min(1).max(50).default(5).describe('How many results, 1..50 (default 5).');
export const scoreThresholdField = unitInterval.default(0.25).describe('Minimum fused score in [0, 1] (default 0.25).');
export const txIdField = z.number().int().min(1);

export const isoDate = z.string().describe('ISO 8601 timestamp');
const isoInput = z.iso.datetime({ offset: true }).describe('ISO 8601 timestamp, e.g. 2026-11-01T00:00:00Z');

export const timeRangeField = z
  .strictObject({ start: isoInput.optional(), end: isoInput.optional() })
  .refine((r) => !r.start || !r.end || r.start <= r.end || new Date(r.start) <= new Date(r.end), 'start must not be after end')
  .describe('Only memories recorded in [start, end].');

/** The filters `query` and `search` share, as echoed back in `used_filters`. */
export const usedFiltersSchema = z.object({
  project_id: z.string().nullable(),
  memory_type: memoryTypeField.nullable(),
  tags: z.array(z.string()).nullable(),
  topic: z.string().nullable(),
  time_range: z.object({ start: z.string().nullable(), end: z.string().nullable() }).nullable(),
});

export function toFilters(args: { project_id?: string | undefined; memory_type?: string | undefined; tags?: string[] | undefined; topic?: string | undefined; time_range?: { start?: string | undefined; end?: string | undefined } | undefined }) {
  return {
    service: {
      projectId: args.project_id,
      memoryType: args.memory_type,
      tags: args.tags,
      topic: args.topic,
      timeRange: args.time_range ? { start: args.time_range.start ? new Date(args.time_range.start) : undefined, end: args.time_range.end ? new Date(args.time_range.end) : undefined } : undefined,
      excludeKinds: ['entity'],
    },
    used: {
      project_id: args.project_id ?? null,
      memory_type: (args.memory_type ?? null) as z.output<typeof memoryTypeField> | null,
      tags: args.tags?.length ? args.tags : null,
      topic: args.topic ?? null,
      time_range: args.time_range ? { start: args.time_range.start ?? null, end: args.time_range.end ?? null } : null,
    },
  };
}
