import * as z from 'zod';
import { markersFor } from '../kit/markdown.js';
import { contractMarkersSchema } from '../kit/payloads.js';
import { defineTool, WRITE } from '../kit/define.js';
import { aliased } from '../kit/aliases.js';
import { queryTextField } from '../kit/fields.js';

const output = z.object({
  kind: z.literal('synergy_matrix:v1'),
  project_id: z.string(),
  succeeded: z.array(z.string()).describe('Spaces that ranked the memory in their top k for the query.'),
  outcomes: z.number().int().describe('Outcomes recorded in this project so far.'),
  spaces: z.array(z.string()),
  matrix: z.array(z.array(z.number())).describe('(successes together + 1) / (outcomes + 2) per pair of spaces; the diagonal is each space alone.'),
  learned_weights: z.record(z.string(), z.number()).describe('Each space’s success rate relative to the best one: the weights of the "learned" profile.'),
  contract_markers: contractMarkersSchema,
});

export const updateSynergyMatrixTool = defineTool({
  name: 'update_synergy_matrix',
  title: 'Record a retrieval outcome',
  description: `Record that a memory was the right answer to a query (you used, cited or hydrated it): each space is asked alone, and the spaces that found it succeed together in the project's 13×13 synergy matrix.
When to use: after an answer that cited a memory, so the learned weights (profile "learned" in search_graph) follow what actually works in this project.
Example: {"query_text": "when is the database backed up", "node_id": "01JD3Z8Y6W2M4Q9R7T5V1X3B6C"}
Advanced: {"query_text": "parseHttpRequest timeout", "id": "01JD3Z8Y6W2M4Q9R7T5V1X3B6C", "k": 5}`,
  annotations: WRITE,
  input: z.strictObject({
    query_text: aliased(queryTextField.describe('The query the memory answered.'), 'query'),
    node_id: aliased(z.string().min(1).describe('The memory that answered it.'), 'id'),
    k: z.number().int().min(1).max(50).default(10).describe('A space succeeds when the memory is in its top k.'),
  }),
  output,
  async handler(args, ctx) {
    const t = ctx.services.teleology;
    const { projectId, succeeded } = await t.recordOutcome({ query: args.query_text, nodeId: args.node_id, k: args.k }, ctx.actor);
    const s = await t.synergy(projectId);
    return {
      kind: 'synergy_matrix:v1' as const,
      project_id: projectId,
      succeeded,
      outcomes: s.outcomes,
      spaces: s.spaces,
      matrix: s.matrix,
      learned_weights: s.learned,
      contract_markers: markersFor(0),
    };
  },
  render(r) {
    return `Recorded outcome ${r.outcomes} in ${r.project_id}: ${r.succeeded.length ? r.succeeded.join(', ') : 'no space'} found the memory. Learned weights: ${
      Object.entries(r.learned_weights)
        .map(([s, w]) => `${s} ${w}`)
        .join(', ') || 'none yet'
    }.`;
  },
});
