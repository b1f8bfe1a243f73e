import * as z from 'zod';
import { markersFor, renderCards } from '../kit/markdown.js';
import { contractMarkersSchema } from '../kit/payloads.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { inlineName } from '../graph/relate.js';
import { edgeLabel, navEdgeSchema, navNodeSchema, nodeIdField, nodeLine } from './shapes.js';

const input = z.strictObject({
  source_id: nodeIdField.describe('Where the chain starts (the cause, going forward).'),
  target_id: nodeIdField.describe('Where it should end.'),
  max_hops: z.number().int().min(1).max(10).default(5).describe('Longest chain, 1..10 hops.'),
  direction: z.enum(['forward', 'backward', 'bidirectional']).default('forward').describe('forward: cause → effect; backward: effect → cause; bidirectional: either.'),
});

const hop = navEdgeSchema.extend({ from: z.string(), to: z.string() });

const output = z.object({
  kind: z.literal('causalPath:v1'),
  found: z.boolean().describe('True when the chain reaches the target.'),
  path: z.array(navNodeSchema).describe('The chain from source to target in order; without a route, the walk up to the cycle when one was met; else empty.'),
  hops: z.array(hop).describe("Each hop's causal relation, in order (one fewer than path)."),
  chain: z.string().describe('The path as names joined by →, e.g. "UserAuth → JWT → Middleware".'),
  cycle_detected: z.boolean(),
  cycle: z.array(z.string()).nullable().describe('The ids of the first cycle met, from its first node back to it.'),
  explored: z.number().int().describe('Nodes visited.'),
  contract_markers: contractMarkersSchema,
});

export const findCausalPathTool = defineTool({
  name: 'find_causal_path',
  title: 'The causal chain between two nodes',
  description: `The shortest chain of Causal edges from one node to another (breadth first, each node once), with each hop's relation, weight, confidence and how the edge was made. A cycle on the way is reported (cycle_detected, cycle) and never followed; with no route, the path up to the cycle is returned.
When to use: to explain WHY two things are connected ("the outage → the rollback → the missed release"), not just THAT they are.
Example: {"source_id": "01J9Z8X7W6V5T4S3R2Q1P0N9M8", "target_id": "01J9Z8X7W6V5T4S3R2Q1P0N9M9"}
Advanced: {"source_id": "01J9Z8X7W6V5T4S3R2Q1P0N9M8", "target_id": "01J9Z8X7W6V5T4S3R2Q1P0N9M9", "max_hops": 8, "direction": "bidirectional"}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    const r = await ctx.services.navigation.causalPath({ sourceId: args.source_id, targetId: args.target_id, maxHops: args.max_hops, direction: args.direction });
    return {
      kind: 'causalPath:v1' as const,
      found: r.found,
      path: r.path,
      hops: r.hops.map((h) => ({ ...h, edge_type: h.edge_type as z.output<typeof navEdgeSchema>['edge_type'] })),
      chain: r.path.map((n) => n.name).join(' → '),
      cycle_detected: r.cycle_detected,
      cycle: r.cycle,
      explored: r.explored,
      contract_markers: markersFor(r.path.length),
    };
  },
  render(r) {
    const heading =
      (r.found
        ? `Causal chain in ${r.hops.length} hop${r.hops.length === 1 ? '' : 's'}: ${inlineName(r.chain)}`
        : r.path.length
          ? 'No chain reaches the target; the walk up to the cycle'
          : 'No causal chain between the two nodes') +
      (r.cycle_detected ? ' (cycle detected)' : '') +
      '.';
    return renderCards('path-node', heading, r.path, (n, i) => `${i + 1}. ${nodeLine(n)}` + (r.hops[i] ? `\n   ${edgeLabel(r.hops[i])}` : ''));
  },
});
