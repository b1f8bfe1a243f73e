import * as z from 'zod';
import { defineTool, IDEMPOTENT_WRITE } from '../kit/define.js';
import { projectIdField } from '../kit/fields.js';
import { aliased } from '../kit/aliases.js';
import { LINK_KINDS } from '../../services/navigation/link-plan.js';

const input = z.strictObject({
  project_id: aliased(projectIdField.default('default').describe('The project whose memories to link.'), 'project'),
  kinds: z.array(z.enum(LINK_KINDS)).min(1).max(4).optional().describe('Which automatic edges: Semantic, Temporal, Causal, Hierarchical (all when omitted).'),
});

const counts = z.object({ Semantic: z.number().int(), Temporal: z.number().int(), Causal: z.number().int(), Hierarchical: z.number().int() });

const output = z.object({
  kind: z.literal('edgeBuild:v1'),
  status: z.enum(['done', 'accepted']).describe('accepted: still running in the background (follow it by job_id).'),
  job_id: z.string().nullable(),
  memories: z.number().int().nullable().describe('Memories visited (when done).'),
  created: counts.nullable().describe('New edges by type (when done); existing edges are not added again.'),
});

export const buildEdgesTool = defineTool({
  name: 'build_edges',
  title: 'Add automatic edges over a whole project',
  description: `Runs the automatic-edge job over every memory of a project, with progress: Semantic edges to nearest neighbours in E1, Temporal edges between consecutive memories of a source or session, Causal edges from stated causes ("because", "so", "leads to", "caused by", …), Hierarchical edges from topics, tags and "X is a Y" / "X is part of Y". Idempotent: existing edges are kept, not duplicated. Writes after the first run get their edges automatically.
When to use: after importing memories with automatic edges off, or after a rule change, to (re)populate the graph the navigation tools walk.
Example: {}
Advanced: {"project_id": "team-x", "kinds": ["Causal", "Temporal"]}`,
  annotations: IDEMPOTENT_WRITE,
  input,
  output,
  async handler(args, ctx) {
    const { job, payload } = ctx.services.navigation.linkProjectJob(args.project_id, args.kinds);
    const r = await ctx.jobs.run(job, payload);
    if ('status' in r && r.status === 'accepted') return { kind: 'edgeBuild:v1' as const, status: 'accepted' as const, job_id: r.jobId, memories: null, created: null };
    const done = r as { memories: number; created: z.output<typeof counts> };
    return { kind: 'edgeBuild:v1' as const, status: 'done' as const, job_id: null, memories: done.memories, created: done.created };
  },
  render(r) {
    if (r.status === 'accepted') return `Linking continues in the background (job ${r.job_id}).`;
    const c = r.created!;
    return `Visited ${r.memories} memories; new edges: ${c.Semantic} Semantic, ${c.Temporal} Temporal, ${c.Causal} Causal, ${c.Hierarchical} Hierarchical.`;
  },
});
