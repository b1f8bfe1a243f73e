import { z } from 'zod';
import { newId } from '../../ids.js';
import type { Embedder } from '../../embed/embedder.js';
import { defineJob, enqueueJob, type JobHandlerContext } from '../../jobs/define.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Logger } from '../../log.js';
import type { Db } from '../../store/db.js';
import { insertEdgesBulk, type ImportedEdge } from '../../store/bulk-repo.js';
import { liveEdgesBetween } from '../../store/edges-repo.js';
import { writeEmbeddings } from '../../store/embeddings-repo.js';
import { ENTITY_KIND, liveEntitiesByName } from '../../store/entities-repo.js';
import { advisoryXactLock, LOCKS } from '../../store/locks.js';
import { countMemoriesOfProject, memoryNidsOfProject } from '../../store/navigation-repo.js';
import { insertNode, liveNodesById, nodesByNid, type NodeRecord } from '../../store/nodes-repo.js';
import { enqueueGraphEmbed } from '../graph-embedding.js';
import { image, newNode, writeTransaction } from '../writes.js';
import { enqueueHierarchyFit } from './hyperbolic-job.js';
import { LINK_KINDS, planEdges, type LinkKind, type PlannedEdge, type PlannedEnd } from './link-plan.js';
import type { NearestMemories } from './nearest.js';

export interface LinkJobDeps {
  db: Db;
  embedder: Embedder;
  nearest: NearestMemories;
  queue: JobQueue;
  logger: Logger;
}

/** Who the transaction log names as the writer of automatic edges. */
export const LINK_ACTOR = 'job:link';
const PAGE = 200;

const counts = z.object({ Semantic: z.number().int(), Temporal: z.number().int(), Causal: z.number().int(), Hierarchical: z.number().int() });
const linkProgress = z.object({ done: z.number().int().nonnegative(), total: z.number().int().nonnegative() });
type Counts = z.output<typeof counts>;

/** Writes one memory's planned edges in one transaction (op `link`), skipping those that exist; names become entity nodes. */
async function writePlans(db: Db, node: NodeRecord, plans: readonly PlannedEdge[]): Promise<{ created: Counts; entities: NodeRecord[]; ends: string[] }> {
  const created: Counts = { Semantic: 0, Temporal: 0, Causal: 0, Hierarchical: 0 };
  const moved: string[] = [];
  if (plans.length === 0) return { created, entities: [], ends: moved };
  const kinds = [...new Set(plans.map((p) => p.metadata['method']))].join(', ');
  const { result } = await writeTransaction(db, 'link', { actor: LINK_ACTOR, rationale: `automatic edges for ${node.id} (${kinds})` }, async (tx, log) => {
    // Serialises link jobs (and relate's entity creation) so two never add the same edge or name twice.
    await advisoryXactLock(tx, LOCKS.relate);
    const entities: NodeRecord[] = [];
    // Every name and every existing edge between the planned ends in two statements, not two per plan.
    const names = plans.flatMap((p) => [p.src, p.dst]).flatMap((end) => ('entity' in end ? [end.entity] : []));
    const known = await liveEntitiesByName(tx, node.project_id, names);
    const resolve = async (end: PlannedEnd): Promise<string> => {
      if ('id' in end) return end.id;
      // Names are lower-cased when planned; one created here is found by that name too.
      const existing = known.get(end.entity) ?? known.get(end.entity.toLowerCase());
      if (existing) return existing.id;
      const made = await insertNode(tx, newNode({ kind: ENTITY_KIND, project_id: node.project_id, topic: end.entity, content: end.entity }));
      log({ entity: 'node', entityId: made.id, before: null, after: image(made) });
      entities.push(made);
      known.set(end.entity.toLowerCase(), made);
      return made.id;
    };
    const ends: Array<[string, string]> = [];
    for (const p of plans) ends.push([await resolve(p.src), await resolve(p.dst)]);
    const live = await liveEdgesBetween(tx, ends);
    // What findLiveEdgeEitherWay (Semantic) and findLiveEdge (the rest) would find, this batch's own inserts included.
    const exists = (src: string, dst: string, p: PlannedEdge) =>
      p.edge_type === 'Semantic'
        ? live.some((e) => e.edge_type === 'Semantic' && ((e.src === src && e.dst === dst) || (e.src === dst && e.dst === src)))
        : live.some((e) => e.src === src && e.dst === dst && e.predicate.toLowerCase() === p.predicate.toLowerCase());
    const fresh: ImportedEdge[] = [];
    for (const [i, p] of plans.entries()) {
      const [src, dst] = ends[i]!;
      if (src === dst) continue;
      if (exists(src, dst, p)) continue;
      const edge = {
        id: newId(),
        src,
        dst,
        edge_type: p.edge_type,
        predicate: p.predicate,
        weight: p.weight,
        confidence: p.confidence,
        metadata: p.metadata,
        valid_from: null,
        valid_to: null,
        created_at: null,
      };
      fresh.push(edge);
      live.push(edge);
    }
    // One statement for the memory's new edges, logged in plan order.
    for (const edge of await insertEdgesBulk(tx, fresh)) {
      log({ entity: 'edge', entityId: edge.id, before: null, after: image(edge) });
      created[edge.edge_type as LinkKind]++;
      moved.push(edge.src, edge.dst);
    }
    return entities;
  });
  return { created, entities: result, ends: moved };
}

/**
 * The `link` job: automatic Semantic, Temporal, Causal and Hierarchical edges for the given
 * memories, or for every memory of a project. Idempotent: an edge that exists is not added again,
 * so a retry or a second run over the same memories adds nothing. A change to the hierarchy
 * re-enqueues the Poincaré fit of the project.
 */
export const linkJob = defineJob({
  type: 'link',
  payload: z
    .object({
      nids: z.array(z.number().int().positive()).min(1).optional(),
      project_id: z.string().min(1).optional(),
      kinds: z.array(z.enum(LINK_KINDS)).min(1).optional(),
    })
    .refine((p) => (p.nids === undefined) !== (p.project_id === undefined), 'give nids or project_id, not both'),
  progress: linkProgress,
  result: z.object({ memories: z.number().int(), created: counts }),
  async handler(payload, { deps, report, jobId, signal }: JobHandlerContext<z.input<typeof linkProgress>, LinkJobDeps>) {
    const kinds = new Set<LinkKind>(payload.kinds ?? LINK_KINDS);
    const total: Counts = { Semantic: 0, Temporal: 0, Causal: 0, Hierarchical: 0 };
    const projects = new Set<string>();
    let memories = 0;
    // Both ends of every new edge: their E8 (graph) vectors move (graph-embed job).
    const moved = new Set<string>();
    const size = payload.project_id !== undefined ? await countMemoriesOfProject(deps.db, payload.project_id) : payload.nids!.length;
    const linkPage = async (nids: number[]) => {
      for (const node of await nodesByNid(deps.db, nids)) {
        if (signal.aborted) throw new Error(`link job stopped: ${signal.reason instanceof Error ? signal.reason.message : String(signal.reason)}`);
        if (node.deleted_at !== null || node.kind === ENTITY_KIND) continue;
        const plans = await planEdges(deps, node, kinds, jobId);
        const { created, entities, ends } = await writePlans(deps.db, node, plans);
        for (const id of ends) moved.add(id);
        for (const k of LINK_KINDS) total[k] += created[k];
        if (created.Hierarchical > 0) projects.add(node.project_id);
        if (entities.length > 0) await embedEntities(deps, entities);
        memories++;
      }
      await report({ done: memories, total: size });
    };
    if (payload.project_id !== undefined) {
      for (let after = 0; ;) {
        const nids = await memoryNidsOfProject(deps.db, payload.project_id, after, PAGE);
        if (nids.length > 0) await linkPage(nids);
        if (nids.length < PAGE) break;
        after = nids[nids.length - 1]!;
      }
    } else {
      for (let i = 0; i < payload.nids!.length; i += PAGE) await linkPage(payload.nids!.slice(i, i + PAGE));
    }
    for (const projectId of projects) await enqueueHierarchyFit(deps, projectId);
    if (moved.size > 0)
      await enqueueGraphEmbed(
        deps.queue,
        (await liveNodesById(deps.db, [...moved])).map((n) => n.nid),
      );
    return { memories, created: total };
  },
});

/** Entities the job named get vectors like any node, so search and the E1 seeding of the fit see them. */
async function embedEntities(deps: LinkJobDeps, nodes: readonly NodeRecord[]): Promise<void> {
  const vectors = await deps.embedder.embed(
    nodes.map((n) => n.content),
    undefined,
    { background: true },
  );
  const writes = deps.embedder.encoders().flatMap((enc) => nodes.map((n, i) => ({ nid: n.nid, space: enc.space, modelId: enc.modelId, vector: vectors.get(enc.space)?.[i] })));
  await writeEmbeddings(
    deps.db,
    writes.filter((w): w is typeof w & { vector: Float32Array } => w.vector !== undefined),
  );
}

/** Enqueues automatic edges for memories just written (deduplicated per nodes and versions). */
export async function enqueueLinks(
  queue: JobQueue,
  nodes: ReadonlyArray<{ nid: number; version: number }>,
  opts: { delayMs?: number; background?: boolean } = {},
): Promise<string | null> {
  if (nodes.length === 0) return null;
  const nids = nodes.map((n) => n.nid);
  const id = `link-${nids[0]}-${nids[nids.length - 1]}-${nids.length}-v${nodes.map((n) => n.version).join('.')}`;
  return (await enqueueJob(queue, linkJob, { nids }, { jobId: id, ...opts })).id;
}
