import * as z from 'zod';
import { isoDate, tagsField } from '../kit/fields.js';

/**
 * Field and entity schemas of seed 002's project-knowledge model. Text fields (§3.3) are
 * strings; structured fields (§3.4) are JSON kept as given.
 */

const TEXT_MAX = 20_000;
export const textField = z.string().trim().min(1, 'must not be empty').max(TEXT_MAX);
export const jsonObject = z.record(z.string(), z.unknown());
/** A structured field: a JSON object, or a list (e.g. `how` as ordered steps). */
export const structured = z.union([jsonObject, z.array(z.unknown())]);
export const entityIdField = z.string().trim().min(1).max(128);
export const expectedVersionField = z.number().int().min(1).optional().describe('Optimistic concurrency: refused (VERSION_CONFLICT) if the entity is no longer at this version.');
export const listLimitField = z.number().int().min(1).max(200).default(50).describe('How many, oldest first.');
export const afterField = entityIdField.optional().describe('Cursor: the last id of the previous page.');
export const optionalTags = tagsField.optional().describe('Labels for search-by-tags.');

export const DIFFICULTIES = ['beginner', 'intermediate', 'advanced'] as const;
export const difficultyField = z.enum(DIFFICULTIES);
export const EXECUTION_STATUSES = ['not_started', 'in_progress', 'complete', 'failed', 'blocked', 'reused'] as const;
export const TIDE_OUTCOMES = ['success', 'partial', 'failed'] as const;

const managed = {
  id: z.string(),
  tags: z.array(z.string()),
  created_at: isoDate,
  updated_at: isoDate,
  version: z.number().int().describe('Starts at 1, + 1 on every update.'),
};

export const phaseSchema = z.object({
  phase_id: z.string(),
  what: z.string(),
  scope: jsonObject.optional(),
  architecture: jsonObject.optional(),
  success_criteria: jsonObject.optional(),
  status: z.string().optional(),
  ...managed,
});

export const workSchema = z.object({
  work_id: z.string(),
  what: z.string(),
  why: z.string().optional(),
  how: structured.optional(),
  metrics: structured.optional(),
  ...managed,
});

export const pathWorkSchema = z.object({ work_id: z.string(), sequence: z.number().int(), purpose: z.string().nullable(), what: z.string().nullable() });

export const pathSchema = z.object({
  path_id: z.string(),
  phase_id: z.string(),
  what: z.string(),
  metrics: structured.optional(),
  for_new_session: z.union([z.string(), structured]).optional(),
  status: z.string().optional(),
  works: z.array(pathWorkSchema).describe('In order (path_add_works).'),
  ...managed,
});

export const executionEntrySchema = z.object({
  status: z.enum(EXECUTION_STATUSES),
  evidence: z.union([z.string(), structured]).optional(),
  error: z.string().optional(),
  timestamp: isoDate.optional(),
});

export const tideSchema = z.object({
  tide_id: z.string(),
  path_id: z.string(),
  number: z.number().int().describe('1, 2, … per path: the attempt number.'),
  title: z.string(),
  status: z.enum(['running', 'completed']),
  execution: z.record(z.string(), executionEntrySchema).describe('Work id (or step name) → its status and evidence.'),
  outcome: z.enum(TIDE_OUTCOMES).nullable(),
  learnings: z.union([z.string(), jsonObject]).nullable(),
  metrics_achieved: z.record(z.string(), z.boolean()).optional(),
  started_at: isoDate,
  completed_at: isoDate.nullable(),
  ...managed,
});

export const exampleSchema = z.object({
  code: z.string().max(TEXT_MAX),
  language: z.string().max(32).default('typescript'),
  description: z.string().max(2_000).optional(),
});

export const patternSchema = z.object({
  pattern_id: z.string(),
  name: z.string(),
  category: z.string().optional(),
  difficulty: difficultyField.optional(),
  summary: z.string().optional(),
  description: z.string(),
  solution: z.string().optional(),
  use_when: z.string().optional(),
  avoid_when: z.string().optional(),
  problem_category: z.string().optional(),
  examples: z.array(exampleSchema).optional(),
  evidence: z.union([z.string(), structured]).optional(),
  reusability_score: z.number().optional(),
  tide_id: z.string().optional(),
  ...managed,
});

export const ENTITY_SCHEMAS = { phase: phaseSchema, work: workSchema, path: pathSchema, tide: tideSchema, pattern: patternSchema } as const;
