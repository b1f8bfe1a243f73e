import * as z from 'zod';
import { EDGE_TYPES } from '../../services/graph.js';
import { inlineName } from '../graph/relate.js';

/** A node id as seed 001 passes it (`node_id`, `source_id`, …): the id `store` or `relate` answered. */
export const nodeIdField = z.string().trim().min(1).max(64);
export const edgeTypesField = z.array(z.enum(EDGE_TYPES)).min(1).max(EDGE_TYPES.length);

export const navNodeSchema = z.object({
  id: z.string(),
  kind: z.string(),
  name: z.string().describe('Entity name, or the memory topic, or the start of its content.'),
  project_id: z.string(),
  snippet: z.string().describe('The first 200 characters of the content.'),
});

export const navEdgeSchema = z.object({
  edge_id: z.string(),
  edge_type: z.enum(EDGE_TYPES),
  predicate: z.string(),
  weight: z.number(),
  confidence: z.number(),
  direction: z.enum(['outgoing', 'incoming', 'undirected']).describe('As seen from the node it was reached from; Semantic and Shortcut edges are undirected.'),
  method: z.string().describe('How the edge was made: e1_knn, sequence, cue:<phrase>, tag, topic, pattern:is_a, pattern:part_of, dream_shortcut, hebbian, or manual (relate).'),
});

/** One node as a markdown line: id, name, and the edge it was reached by. */
export function nodeLine(n: z.output<typeof navNodeSchema>): string {
  return `**[${n.id}]** ${inlineName(n.name)} (${n.kind})`;
}

export function edgeLabel(e: z.output<typeof navEdgeSchema>): string {
  const arrow = e.direction === 'outgoing' ? '→' : e.direction === 'incoming' ? '←' : '↔';
  return `${arrow} ${e.edge_type} ${inlineName(e.predicate)} · weight ${e.weight} · confidence ${e.confidence} · ${e.method}`;
}
