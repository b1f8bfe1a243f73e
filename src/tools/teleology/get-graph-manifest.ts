import * as z from 'zod';
import { markersFor } from '../kit/markdown.js';
import { contractMarkersSchema } from '../kit/payloads.js';
import { defineTool, READ_ONLY } from '../kit/define.js';

const output = z.object({
  kind: z.literal('graph_manifest:v1'),
  nodes_by_kind: z.record(z.string(), z.number().int()),
  edges_by_type: z.record(z.string(), z.number().int()),
  projects: z.array(z.object({ project_id: z.string(), nodes: z.number().int(), fingerprinted: z.number().int() })),
  spaces: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      status: z.enum(['implemented', 'planned']),
      weight: z.number(),
      model_id: z.string().nullable(),
      dim: z.number().int().nullable().describe('0: sparse (term vectors).'),
      vectors: z.number().int().describe('Live memories with a vector in this space.'),
    }),
  ),
  contract_markers: contractMarkersSchema,
});

export const getGraphManifestTool = defineTool({
  name: 'get_graph_manifest',
  title: 'Graph manifest',
  description: `What the store holds: live nodes by kind, live edges by type, projects (with how many memories have a fingerprint), and all 13 embedding spaces with their model id, dimension, fusion weight and vector count.
When to use: before planning searches, to learn which projects and spaces exist and whether embedding has caught up.
Example: {}
Advanced: {"format": "json"}`,
  annotations: READ_ONLY,
  input: z.strictObject({}),
  output,
  async handler(_args, ctx) {
    const m = await ctx.services.teleology.manifest();
    return {
      kind: 'graph_manifest:v1' as const,
      nodes_by_kind: m.nodesByKind,
      edges_by_type: m.edgesByType,
      projects: m.projects,
      spaces: m.spaces.map((s) => ({
        id: s.id,
        name: s.name,
        status: s.status,
        weight: s.weight,
        model_id: s.encoder?.model_id ?? null,
        dim: s.encoder?.dim ?? null,
        vectors: s.vectors,
      })),
      contract_markers: markersFor(0),
    };
  },
  render(r) {
    const kv = (o: Record<string, number>) =>
      Object.entries(o)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none';
    return [
      `Nodes: ${kv(r.nodes_by_kind)}. Edges: ${kv(r.edges_by_type)}. Projects: ${r.projects.map((p) => `${p.project_id} (${p.nodes})`).join(', ') || 'none'}.`,
      '',
      '| space | name | model id | dim | weight | vectors |',
      '|---|---|---|---|---|---|',
      ...r.spaces.map((s) => `| ${s.id} | ${s.name} | ${s.model_id ?? '(planned)'} | ${s.dim ?? '–'} | ${s.weight} | ${s.vectors} |`),
    ].join('\n');
  },
});
