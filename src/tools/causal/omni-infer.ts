import * as z from 'zod';
import { inlineText, markersFor, quoteMemory, renderCards } from '../kit/markdown.js';
import { contractMarkersSchema } from '../kit/payloads.js';
import { aliased } from '../kit/aliases.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { entryLinks } from '../kit/entry.js';
import { nodeIdField, unitInterval } from '../kit/fields.js';
import { round4 } from '../teleology/fields.js';

export const INFER_DIRECTIONS = ['forward', 'backward', 'bidirectional', 'abduction'] as const;

const output = z.object({
  kind: z.literal('omni_infer:v1'),
  source_id: z.string(),
  direction: z.enum(INFER_DIRECTIONS),
  inferences: z.array(
    z.object({
      id: z.string(),
      relation: z.enum(['effect', 'cause']),
      score: z.number().describe('1 − (1 − graph)(1 − e5).'),
      graph: z.number().describe('Product of Causal edge weights along the strongest walk; 0 when not linked.'),
      hops: z.number().int().nullable(),
      e5: z.number().describe('E5 cosine of the source side with this memory’s opposite side.'),
      clause: z.string().nullable().describe('Its stated cause (backward, abduction) or effect (forward).'),
      text: z.string(),
    }),
  ),
  considered: z.number().int(),
  path: z
    .object({ found: z.boolean(), ids: z.array(z.string()), strength: z.number() })
    .nullable()
    .describe('With target_id: the Causal chain to it and its strength.'),
  contract_markers: contractMarkersSchema,
});

export const omniInferTool = defineTool({
  name: 'omni_infer',
  title: 'Causal inference',
  description: `Infer over stored causality from a memory: forward (what it leads to), backward (what led to it), bidirectional, or abduction (the best explanations of it as an observed effect, ranked). Evidence is the Causal edges (weights multiplied along a walk) and the E5 space, whose vectors keep cause and effect clauses apart.
When to use: to predict consequences of a fact, trace its causes, or explain an observation; with target_id, to check whether one memory leads to another.
Example: {"source_id": "01JD3Z8Y6W2M4Q9R7T5V1X3B6C", "direction": "forward"}
Advanced: {"source_id": "01JD3Z8Y6W2M4Q9R7T5V1X3B6C", "direction": "abduction", "max_hops": 2, "limit": 5, "min_score": 0.3}`,
  annotations: READ_ONLY,
  input: z.strictObject({
    source_id: aliased(nodeIdField.describe('The memory to reason from (for abduction: the observed effect).'), 'node_id', 'source'),
    direction: z.enum(INFER_DIRECTIONS).default('forward'),
    target_id: aliased(nodeIdField.optional().describe('Also report the Causal chain from the source to this memory.'), 'target'),
    max_hops: z.number().int().min(1).max(5).default(3).describe('Causal edges walked at most.'),
    limit: z.number().int().min(1).max(50).default(10),
    min_score: unitInterval.default(0).describe('Drop inferences scoring below this.'),
  }),
  output,
  async handler(args, ctx) {
    const r = await ctx.services.causalInference.infer({
      sourceId: args.source_id,
      direction: args.direction,
      targetId: args.target_id,
      maxHops: args.max_hops,
      limit: args.limit,
      minScore: args.min_score,
    });
    return {
      kind: 'omni_infer:v1' as const,
      source_id: r.source.id,
      direction: args.direction,
      inferences: r.hits.map((h) => ({
        id: h.node.id,
        relation: h.relation,
        score: round4(h.score),
        graph: round4(h.graph),
        hops: h.hops,
        e5: round4(h.e5),
        clause: h.clause,
        text: h.node.content,
      })),
      considered: r.considered,
      path: r.path && { ...r.path, strength: round4(r.path.strength) },
      contract_markers: markersFor(r.hits.length),
    };
  },
  render(r) {
    const path = r.path ? (r.path.found ? `Chain to the target: ${r.path.ids.join(' → ')} (strength ${r.path.strength}).` : 'No Causal chain to the target.') : '';
    return renderCards(
      'inference',
      `${r.inferences.length} ${r.direction} inference(s) from ${r.source_id}. ${path}`.trim(),
      r.inferences,
      (h) =>
        `**${h.relation}** \`${h.id}\` score ${h.score} (graph ${h.graph}${h.hops ? `, ${h.hops} hop(s)` : ''}; E5 ${h.e5})${h.clause ? ` — ${h.relation === 'cause' ? 'cause' : 'effect'}: ${inlineText(h.clause)}` : ''}\n${quoteMemory(h.text)}`,
    );
  },
  resourceLinks: (_args, r) => entryLinks(r.inferences),
});
