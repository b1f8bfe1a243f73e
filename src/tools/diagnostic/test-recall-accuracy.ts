import * as z from 'zod';
import { cited, citedIdSchema } from '../curation/cited.js';
import { aliased } from '../kit/aliases.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { boundedQueryField, nodeIdField, projectIdField, unitInterval } from '../kit/fields.js';

const input = z.strictObject({
  query: boundedQueryField.describe('The query, 1–4,096 characters, searched as `search` would.'),
  expected_node_ids: z.array(nodeIdField).min(1).max(100).describe('The memories a perfect search returns (any id form).'),
  top_k: z.number().int().min(1, 'must be at least 1').max(100, 'must be at most 100').default(10),
  project_id: aliased(projectIdField.optional().describe('Search only this project.'), 'project'),
  score_threshold: unitInterval.default(0).describe('Drop hits scoring below this (search uses 0.25); 0 judges the plain top k.'),
});

const output = z.object({
  kind: z.literal('recallAccuracy:v1'),
  query: z.string(),
  top_k: z.number().int(),
  precision: z.number().describe('Expected memories among the retrieved, over the retrieved.'),
  recall: z.number().describe('Expected memories retrieved, over the expected.'),
  f1: z.number(),
  retrieved: z.array(citedIdSchema.extend({ rank: z.number().int(), score: z.number(), expected: z.boolean() })),
  missing_expected: z.array(z.string()),
  unexpected_results: z.array(z.string()),
});

export const testRecallAccuracyTool = defineTool({
  name: 'test_recall_accuracy',
  title: 'Test recall accuracy',
  description: `Run the live hybrid search for a query and score its top k against the memories you expect: precision, recall, F1, the expected memories it missed and the results you did not expect. An expected id that names no live memory is NODE_NOT_FOUND (-32012).
When to use: to check that a fact can be found by the question an agent will ask, or to compare search settings on known answers.
Example: {"query": "when do backups run?", "expected_node_ids": ["01J9Z3K6Q4M8W2X5Y7R1T0V3AB"]}
Advanced: {"query": "deploy rollback window", "expected_node_ids": ["[node_0190f3a2c4e5b6d7e8f9a0b1c2d3e4f5]", "01J9Z3K6Q4M8W2X5Y7R1T0V3AC"], "top_k": 5, "project_id": "ops", "score_threshold": 0.25}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    const r = await ctx.services.retrievalDiagnostics.recallAccuracy({
      query: args.query,
      expectedIds: args.expected_node_ids,
      topK: args.top_k,
      projectId: args.project_id,
      scoreThreshold: args.score_threshold,
    });
    return {
      kind: 'recallAccuracy:v1' as const,
      query: args.query,
      top_k: args.top_k,
      precision: r.precision,
      recall: r.recall,
      f1: r.f1,
      retrieved: r.retrieved.map((h) => ({ ...cited(h.node.id), rank: h.rank, score: h.score, expected: h.expected })),
      missing_expected: r.missing_expected,
      unexpected_results: r.unexpected_results,
    };
  },
  render(r) {
    return [
      `Precision ${r.precision}, recall ${r.recall}, F1 ${r.f1} over the top ${r.top_k} (${r.retrieved.length} retrieved).`,
      ...r.retrieved.map((h) => `${h.rank}. ${h.citation} ${h.score.toFixed(3)}${h.expected ? ' (expected)' : ''}`),
      r.missing_expected.length ? `Missing: ${r.missing_expected.join(', ')}` : 'Every expected memory was retrieved.',
    ].join('\n');
  },
});
