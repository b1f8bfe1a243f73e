import * as z from 'zod';
import { markersFor, renderCards } from '../kit/markdown.js';
import { contractMarkersSchema } from '../kit/payloads.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { unitInterval } from '../kit/fields.js';
import { edgeLabel, edgeTypesField, navEdgeSchema, navNodeSchema, nodeIdField, nodeLine } from './shapes.js';

const input = z.strictObject({
  node_id: nodeIdField.describe('The node to start from (a memory or entity id).'),
  depth: z.number().int().min(1).max(3).default(1).describe('Traversal depth, 1..3.'),
  edge_types: edgeTypesField.optional().describe('Only these edge types: Semantic, Temporal, Causal, Hierarchical, Relational, Shortcut (amortized shortcuts written by dreams).'),
  min_weight: unitInterval.default(0.3).describe('Minimum edge weight, 0..1.'),
  limit: z.number().int().min(1).max(200).default(50).describe('Most neighbours to return, 1..200.'),
});

const output = z.object({
  kind: z.literal('neighborhood:v1'),
  node: navNodeSchema,
  depth: z.number().int(),
  min_weight: z.number(),
  neighbors: z.array(
    navNodeSchema.extend(navEdgeSchema.shape).extend({
      depth: z.number().int().describe('Hops from the start.'),
      via: z.string().describe('The node this neighbour was reached from.'),
    }),
  ),
  truncated: z.boolean().describe('True when limit cut the traversal short.'),
  contract_markers: contractMarkersSchema,
});

export const getNeighborhoodTool = defineTool({
  name: 'get_neighborhood',
  title: 'Neighbours of a node by typed, weighted edges',
  description: `The nodes around a memory or entity, breadth first up to 3 hops, each with the edge that reached it: edge_type, weight, confidence, direction and how the edge was made (automatic Semantic/Temporal/Causal/Hierarchical edges or relate's). Heaviest edges first; edges under min_weight are not followed.
When to use: to see what a memory is connected to — similar memories, what came before and after it, what it caused, what it belongs to — before answering about it.
Example: {"node_id": "01J9Z8X7W6V5T4S3R2Q1P0N9M8"}
Advanced: {"node_id": "01J9Z8X7W6V5T4S3R2Q1P0N9M8", "depth": 3, "edge_types": ["Causal", "Temporal"], "min_weight": 0.5, "limit": 100}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    const r = await ctx.services.navigation.neighbourhood({
      nodeId: args.node_id,
      depth: args.depth,
      edgeTypes: args.edge_types ?? null,
      minWeight: args.min_weight,
      limit: args.limit,
    });
    return {
      kind: 'neighborhood:v1' as const,
      node: r.node,
      depth: args.depth,
      min_weight: args.min_weight,
      neighbors: r.neighbours.map((n) => ({ ...n, edge_type: n.edge_type as z.output<typeof navEdgeSchema>['edge_type'] })),
      truncated: r.truncated,
      contract_markers: markersFor(r.neighbours.length),
    };
  },
  render(r) {
    const heading = `${r.neighbors.length} neighbour${r.neighbors.length === 1 ? '' : 's'} of ${nodeLine(r.node)} within ${r.depth} hop${r.depth === 1 ? '' : 's'} (weight ≥ ${r.min_weight})${r.truncated ? ', truncated' : ''}.`;
    return renderCards('neighbor', heading, r.neighbors, (n) => `${nodeLine(n)} · depth ${n.depth} · ${edgeLabel(n)}\n  ${n.snippet}`);
  },
});
