import * as z from 'zod';
import { PROJECT_KINDS } from '../../services/project-kinds.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { entityIdField, pathSchema, patternSchema, phaseSchema, tideSchema, workSchema } from './schemas.js';

/** seed 002 §2.7: health, structure check and export of the project-knowledge model. */

const countsSchema = z.object(Object.fromEntries(PROJECT_KINDS.map((k) => [k, z.number().int()])) as Record<(typeof PROJECT_KINDS)[number], z.ZodNumber>);

export const healthCheckTool = defineTool({
  name: 'health_check',
  title: 'Health of the server and the project model',
  description: `Is the server up, which store and queue it uses, the last transaction, and how many phases, works, paths, tides and patterns exist (all read live). REST: \`health-check\`.
When to use: first call of an integration, or when something seems off.
Example: {}
Advanced: {"format": "json"}`,
  annotations: READ_ONLY,
  input: z.strictObject({}),
  output: z.object({
    kind: z.literal('projectHealth:v1'),
    status: z.enum(['ok', 'degraded', 'down']),
    version: z.string(),
    problems: z.array(z.string()),
    store: z.object({ driver: z.string(), last_tx_id: z.number().int().nullable() }),
    queue: z.object({ backend: z.string(), consumer: z.string() }),
    counts: countsSchema,
  }),
  async handler(_args, ctx) {
    const h = await ctx.services.health.report();
    return {
      kind: 'projectHealth:v1' as const,
      status: h.status,
      version: h.version,
      problems: h.problems,
      store: { driver: h.store.driver, last_tx_id: h.store.last_tx_id },
      queue: { backend: h.queue.backend, consumer: h.queue.consumer },
      counts: await ctx.services.projectReports.counts(),
    };
  },
  render: (r) =>
    `${r.status === 'ok' ? 'Healthy' : `Status ${r.status} (${r.problems.join('; ')})`}: context-graph ${r.version} on ${r.store.driver} (last transaction ${r.store.last_tx_id ?? 'unknown'}), queue ${r.queue.backend}. Project model: ${PROJECT_KINDS.map((k) => `${r.counts[k]} ${k}s`).join(', ')}.`,
});

export const validateStructureTool = defineTool({
  name: 'validate_structure',
  title: 'Check the project model for structural problems',
  description: `Walks the project model and reports orphans (a path, tide or pattern whose parent is gone), dangling references (a link whose other end is gone, e.g. a path listing a deleted work after an undo), cycles among links, and empty required structures (a phase without success_criteria, a path without works, a completed tide without learnings). Reads only. REST: \`validate-structure\`.
When to use: after bulk edits, deletes or undos, or before exporting.
Example: {}
Advanced: {"format": "json"}`,
  annotations: READ_ONLY,
  input: z.strictObject({}),
  output: z.object({
    kind: z.literal('structureReport:v1'),
    valid: z.boolean(),
    checked: countsSchema,
    issues: z.array(z.object({ type: z.enum(['orphan', 'dangling_reference', 'cycle', 'empty_structure']), entity: z.string(), id: z.string(), message: z.string() })),
  }),
  async handler(_args, ctx) {
    return { kind: 'structureReport:v1' as const, ...(await ctx.services.projectReports.validate()) };
  },
  render: (r) =>
    r.valid
      ? `The project model is consistent (${PROJECT_KINDS.map((k) => `${r.checked[k]} ${k}s`).join(', ')} checked).`
      : `Found ${r.issues.length} issue${r.issues.length === 1 ? '' : 's'}:\n\n${r.issues.map((i, n) => `${n + 1}. [${i.type}] ${i.message}`).join('\n')}`,
});

export const exportGraphTool = defineTool({
  name: 'export_graph',
  title: 'Export the project model as JSON',
  description: `The whole project model, or one phase with its paths, the works they include, their tides and the patterns harvested from those tides, as JSON with every field. REST: \`export-graph\`.
When to use: to hand a project to another tool or session, or to back it up.
Example: {}
Advanced: {"phase_id": "phase_1_build_mvp_for_kg4epic", "format": "json"}`,
  annotations: READ_ONLY,
  input: z.strictObject({ phase_id: entityIdField.optional().describe('Only this phase and what hangs off it.') }),
  output: z.object({
    kind: z.literal('graphExport:v1'),
    phase_id: z.string().nullable(),
    exported_at: z.string(),
    counts: countsSchema,
    phases: z.array(phaseSchema),
    works: z.array(workSchema),
    paths: z.array(pathSchema),
    tides: z.array(tideSchema),
    patterns: z.array(patternSchema),
  }),
  async handler(args, ctx) {
    const g = await ctx.services.projectReports.export(args.phase_id);
    const counts = { phase: g.phases.length, work: g.works.length, path: g.paths.length, tide: g.tides.length, pattern: g.patterns.length };
    return { kind: 'graphExport:v1' as const, phase_id: args.phase_id ?? null, exported_at: new Date().toISOString(), counts, ...g } as never;
  },
  render: (r: { phase_id: string | null; counts: Record<string, number> }) =>
    `Exported ${r.phase_id ? `phase ${r.phase_id}` : 'the whole project model'}: ${PROJECT_KINDS.map((k) => `${r.counts[k]} ${k}s`).join(', ')}. Ask with format "json" for the data.`,
});
