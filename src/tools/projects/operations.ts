import * as z from 'zod';
import { AppError } from '../../errors.js';
import type { Fields } from '../../services/projects.js';
import { defineTool, WRITE } from '../kit/define.js';
import { renderUpdated, updatedOutput, updatedPayload } from './crud.js';
import { entityIdField, executionEntrySchema, expectedVersionField, jsonObject, TIDE_OUTCOMES } from './schemas.js';

/** The operations of seed 002 that are not plain CRUD: linking works, and a tide's lifecycle. */

const workRef = z.union([entityIdField, z.strictObject({ work_id: entityIdField, purpose: z.string().trim().min(1).max(1_000).optional() })]);

export const pathAddWorksTool = defineTool({
  name: 'path_add_works',
  title: 'Add works to a path',
  description: `Append works (from the shared pool) to a path, in the order given, after the ones it has; each link is a typed edge with its sequence and purpose. The path's version moves. Unknown works are PARENT_NOT_FOUND; a work already on the path is CONFLICT (REST DUPLICATE_ID). REST: \`path-add-works\`.
When to use: after creating works, to say which ones a path executes and in what order.
Example: {"path_id": "path_1_rest_gateway_over_postgresql", "works": ["work_1_setup_postgresql_database", "work_2_create_rest_api"]}
Advanced: {"path_id": "path_1_rest_gateway_over_postgresql", "works": [{"work_id": "work_3_add_test_suite", "purpose": "prove the gateway"}], "expected_version": 2}`,
  annotations: WRITE,
  input: z.strictObject({
    path_id: entityIdField.describe('The path to extend.'),
    works: z.array(workRef).min(1).max(100).describe('Work ids, or {work_id, purpose}, in order.'),
    expected_version: expectedVersionField,
  }),
  output: updatedOutput({ kind: 'path' }, 'WorksAdded'),
  async handler(args, ctx) {
    const works = args.works.map((w) => (typeof w === 'string' ? { work_id: w } : w));
    return updatedPayload('path', 'WorksAdded', await ctx.services.projects.addWorks(args.path_id, works, { expectedVersion: args.expected_version, actor: ctx.actor }));
  },
  render: renderUpdated('path', 'has its works added'),
});

function runningTide(fields: Fields, tideId: string): void {
  if (fields.status === 'completed') {
    throw new AppError('VALIDATION_FAILED', `Tide '${tideId}' is completed (outcome ${String(fields.outcome)}); start a new tide with tide_create.`, {
      tide_id: tideId,
      status: 'completed',
    });
  }
}

export const tideUpdateExecutionTool = defineTool({
  name: 'tide_update_execution',
  title: "Record a tide's execution",
  description: `Set the status (and evidence or error) of works or steps inside a running tide's structured \`execution\`; entries not named stay. Each entry gets the server's timestamp. A completed tide is refused (VALIDATION_FAILED). REST: \`tide-update-execution\`.
When to use: while executing a path, after each work finishes, fails or is blocked.
Example: {"tide_id": "tide_1_rest_gateway_over_postgresql", "execution": {"work_1_setup_postgresql_database": {"status": "complete", "evidence": "migrations ran"}}}
Advanced: {"tide_id": "tide_1_rest_gateway_over_postgresql", "execution": {"work_2_create_rest_api": {"status": "failed", "error": "port in use"}}, "expected_version": 3}`,
  annotations: WRITE,
  input: z.strictObject({
    tide_id: entityIdField.describe('The running tide.'),
    execution: z
      .record(entityIdField, executionEntrySchema.omit({ timestamp: true }).strict())
      .refine((e) => Object.keys(e).length > 0, 'must name at least one work or step')
      .describe('Work id (or step name) → {status, evidence?, error?}; status is one of not_started, in_progress, complete, failed, blocked, reused.'),
    expected_version: expectedVersionField,
  }),
  output: updatedOutput({ kind: 'tide' }, 'ExecutionUpdated'),
  async handler(args, ctx) {
    const r = await ctx.services.projects.update(
      'tide',
      args.tide_id,
      (fields) => {
        runningTide(fields, args.tide_id);
        const now = new Date().toISOString();
        const execution = { ...((fields.execution as Fields | undefined) ?? {}) };
        for (const [work, entry] of Object.entries(args.execution)) execution[work] = { ...entry, timestamp: now };
        return { ...fields, execution };
      },
      { expectedVersion: args.expected_version, actor: ctx.actor, op: 'tide-update-execution' },
    );
    return updatedPayload('tide', 'ExecutionUpdated', r);
  },
  render: renderUpdated('tide', 'execution recorded'),
});

export const tideCompleteTool = defineTool({
  name: 'tide_complete',
  title: 'Complete a tide',
  description: `Close a running tide with its outcome (success, partial, failed) and learnings (searchable), plus which metrics were achieved. Completing twice is refused (VALIDATION_FAILED). REST: \`tide-complete\`.
When to use: at the end of an attempt; then harvest patterns with pattern_create {"tide_id": …} or start the next attempt with tide_create.
Example: {"tide_id": "tide_1_rest_gateway_over_postgresql", "outcome": "success", "learnings": "Index the what field before loading data."}
Advanced: {"tide_id": "tide_1_rest_gateway_over_postgresql", "outcome": "partial", "learnings": {"for_path": "split the API work", "for_pattern": "retry transient DB errors"}, "metrics_achieved": {"api_working": true, "search_working": false}}`,
  annotations: WRITE,
  input: z.strictObject({
    tide_id: entityIdField.describe('The running tide.'),
    outcome: z.enum(TIDE_OUTCOMES),
    learnings: z.union([z.string().trim().min(1).max(20_000), jsonObject]).describe('What was learned: text, or structured (e.g. for_work / for_path / for_phase / for_pattern).'),
    metrics_achieved: z.record(z.string(), z.boolean()).optional().describe('Metric → achieved.'),
    expected_version: expectedVersionField,
  }),
  output: updatedOutput({ kind: 'tide' }, 'Completed'),
  async handler(args, ctx) {
    const r = await ctx.services.projects.update(
      'tide',
      args.tide_id,
      (fields) => {
        runningTide(fields, args.tide_id);
        return {
          ...fields,
          status: 'completed',
          outcome: args.outcome,
          learnings: args.learnings,
          ...(args.metrics_achieved ? { metrics_achieved: args.metrics_achieved } : {}),
          completed_at: new Date().toISOString(),
        };
      },
      { expectedVersion: args.expected_version, actor: ctx.actor, op: 'tide-complete' },
    );
    return updatedPayload('tide', 'Completed', r);
  },
  render: renderUpdated('tide', 'completed'),
});
