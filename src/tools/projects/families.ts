import * as z from 'zod';
import { familyTools, type Family } from './crud.js';
import { difficultyField, entityIdField, exampleSchema, jsonObject, optionalTags, structured, textField } from './schemas.js';

/** The five families of seed 002 §2, declared once each; crud.ts makes their tools. */

const statusField = z.string().trim().min(1).max(64);
const nullable = <T extends z.ZodType>(s: T) => s.nullable().optional();

export const phaseFamily: Family = {
  kind: 'phase',
  plural: 'phases',
  about: 'a strategic initiative with its scope, architecture and success criteria',
  createFields: {
    what: textField.describe('What the phase is for (searchable).'),
    scope: jsonObject.optional().describe('Structured scope, e.g. {"apis": ["CRUD", "Search"]}.'),
    architecture: jsonObject.optional().describe('Structured architecture decisions.'),
    success_criteria: jsonObject.optional().describe('Structured criteria, e.g. {"api_working": true}.'),
    status: statusField.optional().describe('Free status, e.g. planning, active, done.'),
    tags: optionalTags,
  },
  updateFields: {
    what: textField.optional(),
    scope: nullable(jsonObject),
    architecture: nullable(jsonObject),
    success_criteria: nullable(jsonObject),
    status: nullable(statusField),
    tags: nullable(optionalTags.unwrap()),
  },
  examples: {
    create: '{"what": "Build MVP for KG4EPIC", "success_criteria": {"api_working": true}}',
    createAdvanced:
      '{"what": "Build MVP for KG4EPIC", "scope": {"apis": ["CRUD", "Search"], "cost": "FREE"}, "architecture": {"storage": "PostgreSQL", "dims": 1024}, "success_criteria": {"api_working": true, "search_working": true}, "tags": ["mvp"]}',
  },
  hasDelete: true,
};

export const workFamily: Family = {
  kind: 'work',
  plural: 'works',
  about: 'a reusable unit of work in the shared pool, linked into paths',
  createFields: {
    what: textField.describe('What the work achieves (searchable).'),
    why: textField.optional().describe('Why it is needed (searchable).'),
    how: structured.optional().describe('Structured steps, e.g. {"steps": ["install", "migrate"]} or a list.'),
    metrics: structured.optional().describe('Structured measures of done.'),
    tags: optionalTags,
  },
  updateFields: { what: textField.optional(), why: nullable(textField), how: nullable(structured), metrics: nullable(structured), tags: nullable(optionalTags.unwrap()) },
  examples: {
    create: '{"what": "Setup PostgreSQL database"}',
    createAdvanced:
      '{"what": "Create REST API", "why": "Clients need one gateway", "how": {"steps": ["define routes", "validate input"]}, "metrics": {"endpoints": 31}, "tags": ["api"]}',
  },
  hasDelete: true,
};

export const pathFamily: Family = {
  kind: 'path',
  plural: 'paths',
  about: 'one implementation approach under a phase, with works in order',
  createFields: {
    phase_id: entityIdField.describe('The phase the path belongs to (must exist).'),
    what: textField.describe('The approach (searchable).'),
    metrics: structured.optional().describe('Structured metrics of success.'),
    for_new_session: z.union([textField, structured]).optional().describe('What a new session must know to continue (searchable).'),
    status: statusField.optional(),
    tags: optionalTags,
  },
  updateFields: {
    what: textField.optional(),
    metrics: nullable(structured),
    for_new_session: nullable(z.union([textField, structured])),
    status: nullable(statusField),
    tags: nullable(optionalTags.unwrap()),
  },
  listFilter: { field: 'phase_id', schema: entityIdField.optional().describe('Only the paths of this phase.') },
  examples: {
    create: '{"phase_id": "phase_1_build_mvp_for_kg4epic", "what": "REST gateway over PostgreSQL"}',
    createAdvanced:
      '{"phase_id": "phase_1_build_mvp_for_kg4epic", "what": "REST gateway over PostgreSQL", "metrics": {"p95_ms": 50}, "for_new_session": "Start the server with npm run dev; tests in test/e2e.", "tags": ["api"]}',
    updateField: 'for_new_session',
  },
  hasDelete: true,
};

export const tideFamily: Family = {
  kind: 'tide',
  plural: 'tides',
  about: 'one execution attempt of a path, numbered per path',
  createFields: {
    path_id: entityIdField.describe('The path being executed (must exist); the tide gets the next attempt number.'),
    execution: z
      .record(
        z.string(),
        z.object({ status: z.enum(['not_started', 'in_progress', 'complete', 'failed', 'blocked', 'reused']), evidence: z.union([z.string(), structured]).optional() }),
      )
      .optional()
      .describe('Initial plan: work id → status.'),
    tags: optionalTags,
  },
  listFilter: { field: 'path_id', schema: entityIdField.optional().describe('Only the tides of this path.') },
  examples: {
    create: '{"path_id": "path_1_rest_gateway_over_postgresql"}',
    createAdvanced: '{"path_id": "path_1_rest_gateway_over_postgresql", "execution": {"work_1_setup_postgresql_database": {"status": "not_started"}}, "tags": ["attempt"]}',
  },
  hasDelete: false,
};

export const patternFamily: Family = {
  kind: 'pattern',
  plural: 'patterns',
  about: 'reusable knowledge, often harvested from a tide; also served by search_patterns and get_pattern',
  createFields: {
    name: textField.max(256).describe('Title of the pattern (searchable).'),
    description: textField.describe('The full description (searchable).'),
    summary: textField.max(600).optional().describe('One or two sentences; default: the start of the description.'),
    category: z.string().trim().min(1).max(64).optional().describe('e.g. error-handling, service, validation.'),
    difficulty: difficultyField.optional(),
    solution: textField.optional(),
    use_when: textField.optional(),
    avoid_when: textField.optional(),
    problem_category: z.string().trim().min(1).max(64).optional(),
    examples: z.array(exampleSchema).max(20).optional(),
    evidence: z.union([textField, structured]).optional(),
    reusability_score: z.number().min(1).max(10).optional().describe('1–10.'),
    tide_id: entityIdField.optional().describe('The tide the pattern was harvested from (must exist when given).'),
    tags: optionalTags,
  },
  listFilter: { field: 'category', schema: z.string().trim().min(1).max(64).optional().describe('Only patterns of this category.') },
  examples: {
    create: '{"name": "Retry with backoff", "description": "Retry transient failures with exponential backoff and jitter."}',
    createAdvanced:
      '{"name": "Retry with backoff", "description": "Retry transient failures with exponential backoff and jitter.", "category": "error-handling", "difficulty": "intermediate", "use_when": "Calls to flaky dependencies", "examples": [{"code": "retry(fn, {times: 3})", "language": "typescript"}], "tide_id": "tide_1_rest_gateway_over_postgresql"}',
  },
  hasDelete: false,
};

export const FAMILY_TOOLS = [phaseFamily, workFamily, pathFamily, tideFamily, patternFamily].flatMap(familyTools);
