import * as z from 'zod';
import { markersFor, renderCards } from '../kit/markdown.js';
import { contractMarkersSchema } from '../kit/payloads.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { HYPERBOLIC_SPACES } from '../../services/navigation/hyperbolic-job.js';
import type { EntailmentResult } from '../../services/navigation/navigation.js';
import { navNodeSchema, nodeIdField, nodeLine } from './shapes.js';

const input = z.strictObject({
  node_id: nodeIdField.describe('A node of the hierarchy (a memory with topic/tags, or an entity).'),
  direction: z.enum(['ancestors', 'descendants', 'both']).default('both').describe('ancestors: cones containing the node; descendants: nodes inside its cone.'),
  embedding_space: z.enum(HYPERBOLIC_SPACES).default('E1').describe('Which space seeds the fit (start directions of the nodes): E1 semantic, E5 causal, E7 code.'),
  limit: z.number().int().min(1).max(200).default(50).describe('Most ancestors and most descendants, nearest first.'),
});

const member = navNodeSchema.extend({
  distance: z.number().describe('Poincaré distance to the node.'),
  angle: z.number().describe("Angle at the cone's apex, radians."),
  aperture: z.number().describe("The cone's half-aperture, radians: inside when angle ≤ aperture."),
});

const output = z.object({
  kind: z.literal('entailment:v1'),
  node: navNodeSchema,
  embedding_space: z.enum(HYPERBOLIC_SPACES),
  fitted: z.boolean().describe('False when the node is in no hierarchy (no Hierarchical edge) or no fit could run yet.'),
  reason: z.enum(['not_in_hierarchy', 'not_fitted']).nullable(),
  norm: z.number().nullable().describe('The node’s distance from the origin of the ball: general concepts sit near 0.'),
  aperture: z.number().nullable(),
  ancestors: z.array(member),
  descendants: z.array(member),
  stale: z.boolean().describe('The hierarchy changed since the fit; a refit is queued and these are the previous coordinates.'),
  fit: z.object({ job_id: z.string().nullable(), fitted_at: z.string(), points: z.number().int() }).nullable(),
  contract_markers: contractMarkersSchema,
});
type Output = z.output<typeof output>;

function payload(r: EntailmentResult, space: Output['embedding_space']): Output {
  if (!r.fitted) {
    return {
      kind: 'entailment:v1',
      node: r.node,
      embedding_space: space,
      fitted: false,
      reason: r.reason,
      norm: null,
      aperture: null,
      ancestors: [],
      descendants: [],
      stale: false,
      fit: null,
      contract_markers: markersFor(0),
    };
  }
  return {
    kind: 'entailment:v1',
    node: r.node,
    embedding_space: space,
    fitted: true,
    reason: null,
    norm: r.norm,
    aperture: r.aperture,
    ancestors: r.ancestors,
    descendants: r.descendants,
    stale: r.stale,
    fit: { job_id: r.fit_job_id, fitted_at: r.fitted_at, points: r.points },
    contract_markers: markersFor(r.ancestors.length + r.descendants.length),
  };
}

export const entailmentQueryTool = defineTool({
  name: 'entailment_query',
  title: 'Ancestors and descendants by hyperbolic entailment cones',
  description: `What a node is a kind or part of (ancestors: the cones that contain its point) and what is a kind or part of it (descendants: the points inside its cone), from Poincaré-ball coordinates fitted to the Hierarchical edges (topics, tags, "X is a Y", "X is part of Y", relate's Hierarchical triples) by Riemannian SGD. The first call on a project runs the fit (with progress); later changes refit in the background.
When to use: for "is X a kind of Y?", "what falls under Y?", including links the edges only imply through several levels.
Example: {"node_id": "01J9Z8X7W6V5T4S3R2Q1P0N9M8"}
Advanced: {"node_id": "01J9Z8X7W6V5T4S3R2Q1P0N9M8", "direction": "ancestors", "embedding_space": "E5", "limit": 20}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    const ask = () => ctx.services.navigation.entailment({ nodeId: args.node_id, space: args.embedding_space, direction: args.direction, limit: args.limit });
    let r = await ask();
    if (!r.fitted && r.reason === 'not_fitted') {
      // The hierarchy has no coordinates yet in this space: fit now, reporting epochs as progress.
      const { job, payload: p, jobId } = await ctx.services.navigation.fitJob(r.node.project_id, args.embedding_space);
      await ctx.jobs.run(job, p, { jobId });
      r = await ask();
    }
    return payload(r, args.embedding_space);
  },
  render(r) {
    if (!r.fitted)
      return `${nodeLine(r.node)} has no coordinates: ${r.reason === 'not_in_hierarchy' ? 'it is in no hierarchy (no Hierarchical edge)' : 'the fit is still running'}.`;
    const rows = [...r.ancestors.map((m) => ({ ...m, role: 'ancestor' })), ...r.descendants.map((m) => ({ ...m, role: 'descendant' }))];
    const heading = `${nodeLine(r.node)} (norm ${r.norm}, aperture ${r.aperture} rad): ${r.ancestors.length} ancestors, ${r.descendants.length} descendants in ${r.embedding_space}${r.stale ? ' (stale: refit queued)' : ''}.`;
    return renderCards('cone', heading, rows, (m) => `${m.role}: ${nodeLine(m)} · distance ${m.distance} · angle ${m.angle} ≤ ${m.aperture}`);
  },
});
