import { z } from 'zod';
import { propagate } from '../embed/encoders/graph.js';
import type { Embedder } from '../embed/embedder.js';
import { defineJob, enqueueJob, type JobHandlerContext } from '../jobs/define.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Db, Queryable } from '../store/db.js';
import type { TxChange } from '../store/tx-log.js';
import { liveEdgesTouching } from '../store/edges-repo.js';
import { writeEmbeddings, type EmbeddingWrite } from '../store/embeddings-repo.js';
import { vectorsOf } from '../store/navigation-repo.js';
import { liveNodesById, nodesByNid } from '../store/nodes-repo.js';

/** Edges read per node: its strongest neighbours say where it sits; a hub's thousandth edge adds nothing. */
const MAX_EDGES = 64;
const PAGE = 200;

const progress = z.object({ done: z.number().int().nonnegative(), total: z.number().int().nonnegative() });

/**
 * The `graph-embed` job: E8 vectors of the given nodes from the graph as it stands (src/embed/
 * encoders/graph.ts `propagate`: own E1 vector, mixed with the edge-weighted mean of the live
 * neighbours' E1 vectors). Enqueued for both ends of every edge the link job or relate creates,
 * so the vector follows the edges. Idempotent: it recomputes from the current graph.
 */
export const graphEmbedJob = defineJob({
  type: 'graph-embed',
  payload: z.object({ nids: z.array(z.number().int().positive()).min(1) }),
  progress,
  result: z.object({ written: z.number().int().nonnegative() }),
  async handler({ nids }, { deps, report }: JobHandlerContext<z.input<typeof progress>, { db: Db; embedder: Embedder }>) {
    const e8 = deps.embedder.encoders().find((e) => e.space === 'E8');
    const e1 = deps.embedder.encoders().find((e) => e.space === 'E1');
    if (!e8 || !e1) return { written: 0 };
    let written = 0;
    for (let i = 0; i < nids.length; i += PAGE) {
      const nodes = (await nodesByNid(deps.db, nids.slice(i, i + PAGE))).filter((n) => n.deleted_at === null);
      const writes: EmbeddingWrite[] = [];
      // One query each for the page's edges, the other ends' nids and every vector involved.
      const edges = await liveEdgesTouching(deps.db, { nodeIds: nodes.map((n) => n.id), direction: 'both', limit: 1_000_000 });
      const byNode = new Map<string, Array<{ id: string; weight: number; edge: string }>>();
      for (const e of edges) {
        for (const [me, other] of [
          [e.src, e.dst],
          [e.dst, e.src],
        ] as const) {
          const list = byNode.get(me) ?? [];
          list.push({ id: other, weight: e.weight, edge: e.id });
          byNode.set(me, list);
        }
      }
      const others = new Set(edges.flatMap((e) => [e.src, e.dst]));
      const nidOf = new Map((await liveNodesById(deps.db, [...others])).map((n) => [n.id, n.nid]));
      const vectors = await vectorsOf(deps.db, 'E1', [...new Set([...nodes.map((n) => n.nid), ...nidOf.values()])]);
      for (const node of nodes) {
        const own = vectors.get(node.nid);
        if (!own || own.length !== e1.dim) continue;
        const strongest = (byNode.get(node.id) ?? []).sort((a, b) => b.weight - a.weight || (a.edge < b.edge ? -1 : 1)).slice(0, MAX_EDGES);
        const neighbours = strongest.flatMap((o) => {
          const v = vectors.get(nidOf.get(o.id) ?? -1);
          return v && v.length === own.length ? [{ vector: v, weight: o.weight }] : [];
        });
        writes.push({ nid: node.nid, space: 'E8', modelId: e8.modelId, vector: propagate(own, neighbours) });
      }
      await writeEmbeddings(deps.db, writes);
      written += writes.length;
      await report({ done: Math.min(nids.length, i + PAGE), total: nids.length });
    }
    return { written };
  },
});

/** Recomputes E8 for nodes whose edges changed (by nid). No job id: a later change must recompute again. */
export async function enqueueGraphEmbed(queue: JobQueue, nids: Iterable<number>): Promise<void> {
  const list = [...new Set(nids)].sort((a, b) => a - b);
  if (list.length === 0) return;
  // Nobody waits for E8: it never holds up a job a caller waits for.
  await enqueueJob(queue, graphEmbedJob, { nids: list }, { background: true });
}

/**
 * Ids of the nodes at either end of every edge `changes` touched (its image before and after:
 * a deleted edge's ends lose a neighbour, a re-pointed edge's old and new ends both move), except
 * the edges with an end in `skip` (nodes the caller re-embeds anyway: the embed job recomputes
 * their graph neighbourhood itself).
 */
export function edgeEnds(changes: readonly TxChange[], skip: ReadonlySet<string> = new Set()): string[] {
  const ends = new Set<string>();
  for (const c of changes) {
    if (c.entity !== 'edge') continue;
    for (const img of [c.before, c.after] as Array<{ src?: unknown; dst?: unknown } | null>) {
      if (!img || typeof img.src !== 'string' || typeof img.dst !== 'string') continue;
      if (skip.has(img.src) || skip.has(img.dst)) continue;
      ends.add(img.src);
      ends.add(img.dst);
    }
  }
  return [...ends];
}

/**
 * Recomputes E8 for the live ones of these nodes (by id) after their edges changed outside link
 * and relate: an edge deleted (delete, forget_concept, undo), re-pointed (merge_concepts),
 * imported, or added or re-weighted by a dream. Deleted nodes have no E8 to recompute.
 */
export async function enqueueGraphEmbedOfNodes(db: Queryable, queue: JobQueue, nodeIds: readonly string[]): Promise<void> {
  if (nodeIds.length === 0) return;
  await enqueueGraphEmbed(
    queue,
    (await liveNodesById(db, nodeIds)).map((n) => n.nid),
  );
}

/**
 * Of `nids`, those with a live edge, and the nids at the other end: when such a node's E1 vector
 * is rewritten (the embed job, which also resets its E8 to its own vector), its E8 and its
 * neighbours' must be recomputed. One query; none of a fresh memory (its edges come later).
 */
export async function graphNeighbourhoodOf(q: Queryable, nids: readonly number[]): Promise<number[]> {
  if (nids.length === 0) return [];
  const rows = await q.query<{ nid: number }>(
    `with me as (select id, nid from nodes where nid = any($1::bigint[]))
     select distinct n.nid from me
       join edges e on e.deleted_at is null and (e.src = me.id or e.dst = me.id)
       join nodes n on n.deleted_at is null and n.id in (e.src, e.dst)`,
    [nids],
  );
  return rows.map((r) => Number(r.nid));
}
