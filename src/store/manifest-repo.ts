import type { Queryable } from './db.js';

/** Live nodes by kind, live edges by type, and nodes/vectors/fingerprints per project and space. */
export interface ManifestCounts {
  nodesByKind: Record<string, number>;
  edgesByType: Record<string, number>;
  projects: Array<{ project_id: string; nodes: number; fingerprinted: number }>;
  vectorsBySpace: Record<string, number>;
}

export async function manifestCounts(q: Queryable): Promise<ManifestCounts> {
  const kinds = await q.query<{ kind: string; n: number }>(`select kind, count(*)::int as n from nodes where deleted_at is null group by kind order by kind`);
  const edges = await q.query<{ edge_type: string; n: number }>(`select edge_type, count(*)::int as n from edges where deleted_at is null group by edge_type order by edge_type`);
  const projects = await q.query<{ project_id: string; nodes: number; fingerprinted: number }>(
    `select n.project_id, count(*)::int as nodes, count(f.node_nid)::int as fingerprinted
       from nodes n left join fingerprints f on f.node_nid = n.nid
      where n.deleted_at is null group by n.project_id order by n.project_id`,
  );
  const vectors = await q.query<{ space: string; n: number }>(
    `select e.space, count(*)::int as n from embeddings e join nodes n on n.nid = e.node_nid
      where n.deleted_at is null and e.vector is not null group by e.space`,
  );
  return {
    nodesByKind: Object.fromEntries(kinds.map((r) => [r.kind, Number(r.n)])),
    edgesByType: Object.fromEntries(edges.map((r) => [r.edge_type, Number(r.n)])),
    projects: projects.map((p) => ({ project_id: p.project_id, nodes: Number(p.nodes), fingerprinted: Number(p.fingerprinted) })),
    vectorsBySpace: Object.fromEntries(vectors.map((r) => [r.space, Number(r.n)])),
  };
}
