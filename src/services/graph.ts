import { newId } from '../ids.js';
import { AppError } from '../errors.js';
import type { Db, Queryable } from '../store/db.js';
import {
  edgeImagesTouchingAsOf,
  findLiveEdge,
  insertEdge,
  liveEdgesPage,
  liveEdgesTouching,
  EDGE_TYPES,
  type Direction,
  type EdgeFilter,
  type EdgeImage,
  type EdgeType,
} from '../store/edges-repo.js';
import { closestNamesInProject, ENTITY_KIND, entityImageByNameAsOf, liveEntityByName } from '../store/entities-repo.js';
import { advisoryXactLock, LOCKS } from '../store/locks.js';
import { insertNode, liveNodesById, type NodeRecord } from '../store/nodes-repo.js';
import { imagesAsOf, latestTxId } from '../store/tx-log.js';
import type { JobQueue } from '../jobs/queue.js';
import type { EmbeddingScheduler } from './embedding-scheduler.js';
import { enqueueGraphEmbed } from './graph-embedding.js';
import { image, newNode, writeTransaction } from './writes.js';

export { EDGE_TYPES, type Direction, type EdgeType };

/** Node kind of a named entity (a triple's subject or object given by name rather than id). */
export { ENTITY_KIND };
import {
  holdsAt,
  isNodeId,
  MAX_ENTITY_NAME,
  MAX_PREDICATE,
  MAX_RELATE_BATCH,
  nodeView,
  tripleView,
  type EdgeLike,
  type GraphNodeView,
  type Neighborhood,
  type NeighborhoodQuery,
  type NodeLike,
  type RelateInput,
  type RelateResult,
  type StartNotFound,
  type TripleView,
} from './graph-views.js';

export * from './graph-views.js';

async function nodeImages(q: Queryable, asOfTxId: number, ids: readonly string[]): Promise<GraphNodeView[]> {
  if (ids.length === 0) return [];
  const rows = await imagesAsOf(q, 'node', asOfTxId, { ids, limit: ids.length });
  return rows.map((r) => nodeView(r.image as unknown as NodeLike));
}

async function entityByNameAsOf(q: Queryable, asOfTxId: number, projectId: string, name: string): Promise<GraphNodeView | null> {
  const image = await entityImageByNameAsOf(q, asOfTxId, projectId, name);
  return image ? nodeView(image as unknown as NodeLike) : null;
}

export class GraphService {
  constructor(
    private readonly deps: {
      db: Db;
      /** Schedules embeddings of new entity nodes; null in tests that do not embed. */
      embedding: Pick<EmbeddingScheduler, 'schedule'> | null;
      /** Where the graph-embed job of the new edges' ends goes (their E8 vectors); absent, none is enqueued. */
      queue?: JobQueue;
    },
  ) {}

  /**
   * Records triples in one transaction (op `relate`): names become entity nodes (found
   * case-insensitively in the project, or created), an existing live triple is returned as is.
   * Any failure — an unknown id, a bad date — writes nothing for the whole batch.
   */
  async relate(inputs: readonly RelateInput[], actor: string | null = null): Promise<RelateResult> {
    if (inputs.length === 0) throw new AppError('INVALID_PARAMS', 'relate needs at least one triple.');
    if (inputs.length > MAX_RELATE_BATCH) {
      throw new AppError('INVALID_PARAMS', `relate takes at most ${MAX_RELATE_BATCH} triples per call, got ${inputs.length}.`, { maximum: MAX_RELATE_BATCH });
    }
    // Validate everything before touching the database.
    const prepared = inputs.map((t, index) => {
      const subject = t.subject.trim();
      const object = t.object.trim();
      const predicate = t.predicate.trim();
      for (const [field, v, max] of [
        ['subject', subject, MAX_ENTITY_NAME],
        ['object', object, MAX_ENTITY_NAME],
        ['predicate', predicate, MAX_PREDICATE],
      ] as const) {
        if (v.length === 0) throw new AppError('INVALID_PARAMS', `triples[${index}].${field} must not be empty.`, { field, index });
        if (v.length > max) throw new AppError('INVALID_PARAMS', `triples[${index}].${field} must be at most ${max} characters.`, { field, index, maximum: max });
      }
      if (t.edge_type !== undefined && !(EDGE_TYPES as readonly string[]).includes(t.edge_type)) {
        throw new AppError('INVALID_PARAMS', `triples[${index}].edge_type must be one of ${EDGE_TYPES.join(', ')}.`, { field: 'edge_type', index, allowed: EDGE_TYPES });
      }
      for (const field of ['weight', 'confidence'] as const) {
        const v = t[field];
        if (v !== undefined && !(v >= 0 && v <= 1))
          throw new AppError('INVALID_PARAMS', `triples[${index}].${field} must be between 0 and 1.`, { field, index, minimum: 0, maximum: 1 });
      }
      const validFrom = t.valid_from ?? null;
      const validTo = t.valid_to ?? null;
      if (validFrom && validTo && validFrom.getTime() > validTo.getTime()) {
        throw new AppError('INVALID_PARAMS', `triples[${index}]: valid_from must not be after valid_to.`, { field: 'valid_to', index });
      }
      return {
        index,
        subject,
        object,
        predicate,
        validFrom,
        validTo,
        edgeType: t.edge_type ?? 'Relational',
        weight: t.weight ?? 1,
        confidence: t.confidence ?? 1,
        projectId: t.project_id ?? 'default',
      };
    });

    const { txId, result } = await writeTransaction(this.deps.db, 'relate', { actor }, async (tx, log) => {
      await advisoryXactLock(tx, LOCKS.relate);
      const nodes = new Map<string, GraphNodeView>();
      const created: NodeRecord[] = [];

      const resolve = async (ref: string, field: 'subject' | 'object', index: number, projectId: string): Promise<string> => {
        if (isNodeId(ref)) {
          const [row] = await liveNodesById(tx, [ref.toUpperCase()]);
          if (!row) {
            throw new AppError('NODE_NOT_FOUND', `triples[${index}].${field}: no live entry with id ${ref}.`, { id: ref, field, index });
          }
          nodes.set(row.id, nodeView(row));
          return row.id;
        }
        const existing = await liveEntityByName(tx, projectId, ref);
        if (existing) {
          nodes.set(existing.id, nodeView(existing));
          return existing.id;
        }
        const node = await insertNode(tx, newNode({ kind: ENTITY_KIND, project_id: projectId, topic: ref, content: ref }));
        log({ entity: 'node', entityId: node.id, before: null, after: image(node) });
        created.push(node);
        nodes.set(node.id, nodeView(node));
        return node.id;
      };

      const triples: Array<TripleView & { created: boolean }> = [];
      for (const p of prepared) {
        const src = await resolve(p.subject, 'subject', p.index, p.projectId);
        const dst = await resolve(p.object, 'object', p.index, p.projectId);
        const existing = await findLiveEdge(tx, src, p.predicate, dst);
        if (existing) {
          triples.push({ ...tripleView(existing, nodes), created: false });
          continue;
        }
        const edge = await insertEdge(tx, {
          id: newId(),
          src,
          dst,
          edge_type: p.edgeType,
          predicate: p.predicate,
          weight: p.weight,
          confidence: p.confidence,
          metadata: {},
          valid_from: p.validFrom,
          valid_to: p.validTo,
        });
        log({ entity: 'edge', entityId: edge.id, before: null, after: image(edge) });
        triples.push({ ...tripleView(edge, nodes), created: true });
      }
      return { triples, created };
    });

    if (result.created.length > 0 && this.deps.embedding) await this.deps.embedding.schedule(result.created);
    const ends = result.triples.filter((t) => t.created).flatMap((t) => [t.subject.id, t.object.id]);
    if (ends.length > 0 && this.deps.queue)
      await enqueueGraphEmbed(
        this.deps.queue,
        (await liveNodesById(this.deps.db, ends)).map((n) => n.nid),
      );
    return { txId: txId === 0 ? null : txId, triples: result.triples, entitiesCreated: result.created.map(nodeView) };
  }

  /**
   * Breadth-first neighbourhood of a node (cycle-safe: each node is expanded once), from the live
   * tables or, with `asOfTxId`, from the log as it stood after that transaction.
   */
  async neighborhood(query: NeighborhoodQuery): Promise<Neighborhood | StartNotFound> {
    const { db } = this.deps;
    const depth = query.depth ?? 1;
    const direction = query.direction ?? 'both';
    const limit = query.limit ?? 50;
    const projectId = query.projectId ?? 'default';
    const validAt = query.validAt ?? null;
    if (!Number.isInteger(depth) || depth < 1 || depth > 3) throw new AppError('INVALID_PARAMS', 'depth must be 1, 2 or 3.', { field: 'depth', minimum: 1, maximum: 3 });
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw new AppError('INVALID_PARAMS', 'limit must be 1..200.', { field: 'limit', minimum: 1, maximum: 200 });

    const latest = await latestTxId(db);
    let asOf: number | null = null;
    if (query.asOfTxId !== undefined) {
      if (query.asOfTxId > latest) {
        throw new AppError('INVALID_PARAMS', `as_of_tx_id ${query.asOfTxId} is after the latest transaction (${latest}).`, { field: 'as_of_tx_id', maximum: latest });
      }
      asOf = query.asOfTxId;
    }
    const reflects = asOf ?? latest;

    const ref = query.node.trim();
    let start: GraphNodeView | null = null;
    if (isNodeId(ref)) {
      const id = ref.toUpperCase();
      start = asOf === null ? ((await liveNodesById(db, [id])).map(nodeView)[0] ?? null) : ((await nodeImages(db, asOf, [id]))[0] ?? null);
    }
    if (!start && ref.length > 0) {
      start = asOf === null ? await liveEntityByName(db, projectId, ref).then((n) => (n ? nodeView(n) : null)) : await entityByNameAsOf(db, asOf, projectId, ref);
    }
    if (!start) return { found: false, suggestions: await this.suggest(ref, projectId), asOfTxId: reflects };

    const known = new Map<string, GraphNodeView & { depth: number }>([[start.id, { ...start, depth: 0 }]]);
    const triples = new Map<string, TripleView>();
    let frontier = [start.id];
    let truncated = false;

    for (let d = 1; d <= depth && frontier.length > 0 && !truncated; d++) {
      const remaining = limit - triples.size;
      const filter: EdgeFilter = {
        nodeIds: frontier,
        direction,
        predicates: query.predicates ?? null,
        edgeTypes: query.edgeTypes ?? null,
        validAt,
        excludeIds: [...triples.keys()],
        limit: remaining + 1,
      };
      const edges: EdgeLike[] = asOf === null ? await liveEdgesTouching(db, filter) : await edgeImagesTouchingAsOf(db, asOf, filter);

      // Load the far ends not seen yet (as of the same point), dropping those gone or not valid at `validAt`.
      const frontierSet = new Set(frontier);
      const unseen = new Set<string>();
      for (const e of edges) for (const id of [e.src, e.dst]) if (!known.has(id)) unseen.add(id);
      const loaded = asOf === null ? (await liveNodesById(db, [...unseen])).map(nodeView) : await nodeImages(db, asOf, [...unseen]);
      const available = new Map(loaded.filter((n) => !validAt || holdsAt(n, validAt)).map((n) => [n.id, n]));

      const next: string[] = [];
      for (const e of edges) {
        const fromSrc = direction !== 'in' && frontierSet.has(e.src);
        const fromDst = direction !== 'out' && frontierSet.has(e.dst);
        const far = fromSrc ? e.dst : fromDst ? e.src : null;
        if (far === null) continue;
        if (!known.has(far)) {
          const n = available.get(far);
          if (!n) continue;
          known.set(far, { ...n, depth: d });
          next.push(far);
        }
        if (triples.size >= limit) {
          truncated = true;
          break;
        }
        triples.set(e.id, tripleView(e, known));
      }
      if (!truncated && edges.length > remaining) truncated = true;
      frontier = next;
    }

    // Nodes only reached by an edge that the limit cut off are not reported.
    const reached = new Set<string>([start.id]);
    for (const t of triples.values()) reached.add(t.subject.id).add(t.object.id);
    return {
      found: true,
      start,
      asOfTxId: reflects,
      nodes: [...known.values()].filter((n) => reached.has(n.id)),
      triples: [...triples.values()],
      truncated,
    };
  }

  /** Up to `limit` entity names (or entry ids) closest to `text` by trigram similarity, else the most recent. */
  async suggest(text: string, projectId: string, limit = 5): Promise<string[]> {
    return closestNamesInProject(this.deps.db, text, projectId, limit);
  }

  /**
   * A keyset page of triples (by edge id) with their ends named: live, or as of a transaction.
   * For `knowledge://graph/triples`; `nextCursor` is the last id of a full page.
   */
  async listTriples(opts: { afterId?: string | null; limit: number; asOfTxId?: number | null }): Promise<{ items: TripleView[]; nextCursor: string | null; asOfTxId: number }> {
    const { db } = this.deps;
    const latest = await latestTxId(db);
    const asOf = opts.asOfTxId ?? null;
    let edges: EdgeLike[];
    let ends: GraphNodeView[];
    if (asOf === null) {
      edges = await liveEdgesPage(db, { afterId: opts.afterId ?? null, limit: opts.limit });
      ends = (await liveNodesById(db, [...new Set(edges.flatMap((e) => [e.src, e.dst]))])).map(nodeView);
    } else {
      const rows = await imagesAsOf(db, 'edge', asOf, { afterId: opts.afterId ?? null, limit: opts.limit });
      edges = rows.map((r) => r.image as unknown as EdgeImage);
      ends = await nodeImages(db, asOf, [...new Set(edges.flatMap((e) => [e.src, e.dst]))]);
    }
    const byId = new Map(ends.map((n) => [n.id, n]));
    return {
      items: edges.map((e) => tripleView(e, byId)),
      nextCursor: edges.length === opts.limit ? edges[edges.length - 1]!.id : null,
      asOfTxId: asOf ?? latest,
    };
  }
}
