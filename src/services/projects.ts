import { newId } from '../ids.js';
import { AppError } from '../errors.js';
import type { Db, Queryable } from '../store/db.js';
import type { TxChange } from '../store/tx-log.js';
import { insertEdge } from '../store/edges-repo.js';
import { advisoryXactLock, LOCKS } from '../store/locks.js';
import { insertNode, liveNodesById, transactionNow, type NodeRecord } from '../store/nodes-repo.js';
import {
  countNodesOfKind,
  liveEdgesFrom,
  liveEdgesTo,
  liveNodeOfKind,
  liveNodesOfKind,
  nextTideNumber,
  nodeIdTaken,
  nodeOfKindForUpdate,
  rewriteProjectNode,
  similarIdsOfKind,
} from '../store/projects-repo.js';
import type { EmbeddingScheduler } from './embedding-scheduler.js';
import type { EntriesService } from './entries.js';
import { KIND_SPECS, PREDICATES, PROJECT_KNOWLEDGE_PROJECT, slugId, textOf, type ProjectKind } from './project-kinds.js';
import { contentHash, image, newNode, writeTransaction } from './writes.js';

export type Fields = Record<string, unknown>;

/** A work as a path lists it: in order, with why it is there. */
export interface PathWork {
  work_id: string;
  sequence: number;
  purpose: string | null;
  what: string | null;
}

/** An entity as the tools answer it: its fields as given, plus what the server manages. */
export type EntityView = Fields & { id: string; tags: string[]; created_at: string; updated_at: string; version: number; works?: PathWork[] };

export interface Written {
  entity: EntityView;
  txId: number;
}

/** Turns an entity's fields into its new fields, or throws a registry error (inside the transaction). */
export type Patch = (fields: Fields, ctx: { tx: Queryable; node: NodeRecord; log: (change: TxChange) => void }) => Promise<Fields> | Fields;

/**
 * seed 002's project-knowledge model over the graph: each create, update, link and delete is
 * one logged transaction (so `undo` reverts it), each entity's text is embedded like a memory.
 */
export class ProjectService {
  constructor(private readonly deps: { db: Db; embedding: Pick<EmbeddingScheduler, 'schedule'>; entries: Pick<EntriesService, 'delete'> }) {}

  async create(kind: ProjectKind, input: Fields, actor: string | null): Promise<Written> {
    const spec = KIND_SPECS[kind];
    const { result: node, txId } = await writeTransaction(this.deps.db, `${kind}-create`, { actor }, async (tx, log) => {
      // Numbers are per kind; the lock makes "count, then insert" safe against a concurrent create.
      await advisoryXactLock(tx, LOCKS.projectIds);
      const fields: Fields = { ...input };
      const parentId = spec.parent ? (fields[spec.parent.key] as string | undefined) : undefined;
      let parentTitle = '';
      if (spec.parent && parentId !== undefined && parentId !== null) {
        const parent = await liveNodeOfKind(tx, spec.parent.kind, parentId);
        if (!parent) throw await this.parentNotFound(tx, spec.parent.kind, parentId, spec.parent.key);
        parentTitle = parent.topic ?? '';
      }
      if (kind === 'tide') {
        fields.number = await nextTideNumber(tx, parentId!);
        fields.title = `Tide ${String(fields.number)} of ${parentId!}`;
        fields.status = 'running';
        fields.execution ??= {};
        fields.outcome = null;
        fields.learnings = null;
        fields.started_at = (await transactionNow(tx)).toISOString();
        fields.completed_at = null;
      }
      // A tide is named after the path it executes: tide_7_rest_gateway_over_postgresql.
      const title = kind === 'tide' ? parentTitle : textOf(fields[spec.titleField]);
      let n = (await countNodesOfKind(tx, kind)) + 1;
      while (await nodeIdTaken(tx, slugId(kind, n, title))) n++;
      const node = await insertNode(
        tx,
        newNode({ id: slugId(kind, n, title), kind, project_id: PROJECT_KNOWLEDGE_PROJECT, ...this.nodeText(kind, fields), memory_type: spec.memoryType }),
      );
      log({ entity: 'node', entityId: node.id, before: null, after: image(node) });
      if (spec.parent && parentId) await this.link(tx, log, node.id, parentId, spec.parent.predicate, {});
      return node;
    });
    await this.deps.embedding.schedule([node]);
    return { entity: await this.view(this.deps.db, node), txId };
  }

  async get(kind: ProjectKind, id: string): Promise<EntityView> {
    const node = await liveNodeOfKind(this.deps.db, kind, id);
    if (!node) throw await this.notFound(this.deps.db, kind, id);
    return this.view(this.deps.db, node);
  }

  /**
   * Live entities of a family, oldest first. `parentId` filters on `filterKey` (default: the
   * parent's field); an unknown parent is PARENT_NOT_FOUND rather than an empty list.
   */
  async list(kind: ProjectKind, opts: { limit: number; parentId?: string | undefined; afterId?: string | undefined; filterKey?: string | undefined }): Promise<EntityView[]> {
    const spec = KIND_SPECS[kind];
    const key = opts.filterKey ?? spec.parent?.key;
    if (opts.parentId !== undefined && spec.parent && key === spec.parent.key && !(await liveNodeOfKind(this.deps.db, spec.parent.kind, opts.parentId))) {
      throw await this.parentNotFound(this.deps.db, spec.parent.kind, opts.parentId, spec.parent.key);
    }
    const parent = opts.parentId !== undefined && key ? { key, id: opts.parentId } : undefined;
    const nodes = await liveNodesOfKind(this.deps.db, { kind, limit: opts.limit, parent, afterId: opts.afterId });
    return Promise.all(nodes.map((n) => this.view(this.deps.db, n)));
  }

  /**
   * Rewrites an entity through `patch`, version + 1. With `expectedVersion`, a concurrent change
   * since the caller read it is VERSION_CONFLICT (the row lock orders the two writers).
   */
  async update(kind: ProjectKind, id: string, patch: Patch, opts: { expectedVersion?: number | undefined; actor: string | null; op?: string }): Promise<Written> {
    const { result: node, txId } = await writeTransaction(this.deps.db, opts.op ?? `${kind}-update`, { actor: opts.actor }, async (tx, log) => {
      const before = await nodeOfKindForUpdate(tx, kind, id);
      if (!before || before.deleted_at !== null) throw await this.notFound(tx, kind, id);
      if (opts.expectedVersion !== undefined && before.version !== opts.expectedVersion) {
        throw new AppError(
          'VERSION_CONFLICT',
          `${KIND_SPECS[kind].label} '${id}' is at version ${before.version}, not the expected version ${opts.expectedVersion}; it changed since it was read.`,
          { id, expected_version: opts.expectedVersion, current_version: before.version },
        );
      }
      const fields = await patch({ ...before.metadata, tags: before.tags }, { tx, node: before, log });
      const text = this.nodeText(kind, fields);
      const after = await rewriteProjectNode(tx, id, { ...text, content_hash: contentHash(text.content) });
      log({ entity: 'node', entityId: id, before: image(before), after: image(after) });
      return { after, textChanged: after.content !== before.content || after.topic !== before.topic };
    });
    // Only a change of text needs new vectors (a tide's execution map is not embedded).
    if (node.textChanged) await this.deps.embedding.schedule([node.after]);
    return { entity: await this.view(this.deps.db, node.after), txId };
  }

  /** Appends works to a path in order (edges `includes_work` with a sequence); the path's version moves. */
  async addWorks(
    pathId: string,
    works: ReadonlyArray<{ work_id: string; purpose?: string | undefined }>,
    opts: { expectedVersion?: number | undefined; actor: string | null },
  ): Promise<Written> {
    return this.update(
      'path',
      pathId,
      async (fields, { tx, log }) => {
        const ids = works.map((w) => w.work_id);
        const found = new Set((await liveNodesById(tx, ids)).filter((n) => n.kind === 'work').map((n) => n.id));
        const missing = ids.filter((w) => !found.has(w));
        if (missing.length) throw await this.parentNotFound(tx, 'work', missing[0]!, 'work_id', missing);
        const existing = await liveEdgesFrom(tx, pathId, PREDICATES.includesWork);
        const dupes = ids.filter((w, i) => ids.indexOf(w) !== i || existing.some((e) => e.dst === w));
        if (dupes.length) throw new AppError('CONFLICT', `Work '${dupes[0]}' is already on path '${pathId}'.`, { path_id: pathId, work_ids: [...new Set(dupes)] });
        let sequence = existing.reduce((m, e) => Math.max(m, Number(e.metadata.sequence ?? 0)), 0);
        for (const w of works) await this.link(tx, log, pathId, w.work_id, PREDICATES.includesWork, { sequence: ++sequence, purpose: w.purpose ?? null });
        return fields;
      },
      { ...opts, op: 'path-add-works' },
    );
  }

  /** Soft-deletes an entity and its edges (one transaction, undoable); refused while others depend on it. */
  async remove(kind: ProjectKind, id: string, actor: string | null): Promise<{ txId: number; id: string }> {
    const node = await liveNodeOfKind(this.deps.db, kind, id);
    if (!node) throw await this.notFound(this.deps.db, kind, id);
    const dependants =
      kind === 'work'
        ? (await liveEdgesTo(this.deps.db, id, PREDICATES.includesWork)).map((e) => e.src)
        : (
            await Promise.all(
              Object.values(KIND_SPECS)
                .filter((s) => s.parent?.kind === kind)
                .map((s) => liveNodesOfKind(this.deps.db, { kind: s.kind, limit: 20, parent: { key: s.parent!.key, id } })),
            )
          )
            .flat()
            .map((n) => n.id);
    if (dependants.length) {
      throw new AppError('VALIDATION_FAILED', `${KIND_SPECS[kind].label} '${id}' is still referenced by ${dependants.slice(0, 5).join(', ')}; delete or relink those first.`, {
        id,
        referenced_by: dependants,
      });
    }
    const r = await this.deps.entries.delete({ ids: [id], rationale: `${kind}-delete` }, actor);
    return { txId: r.txId, id };
  }

  /** The works of a path, in order, with their `what`. */
  async pathWorks(q: Queryable, pathId: string): Promise<PathWork[]> {
    const edges = await liveEdgesFrom(q, pathId, PREDICATES.includesWork);
    const works = new Map(
      (
        await liveNodesById(
          q,
          edges.map((e) => e.dst),
        )
      ).map((n) => [n.id, n]),
    );
    return edges.map((e) => ({
      work_id: e.dst,
      sequence: Number(e.metadata.sequence ?? 0),
      purpose: typeof e.metadata.purpose === 'string' ? e.metadata.purpose : null,
      what: typeof works.get(e.dst)?.metadata.what === 'string' ? (works.get(e.dst)!.metadata.what as string) : null,
    }));
  }

  async view(q: Queryable, node: NodeRecord): Promise<EntityView> {
    return {
      ...node.metadata,
      id: node.id,
      [`${node.kind}_id`]: node.id,
      tags: node.tags,
      created_at: node.created_at.toISOString(),
      updated_at: node.updated_at.toISOString(),
      version: node.version,
      ...(node.kind === 'path' ? { works: await this.pathWorks(q, node.id) } : {}),
    };
  }

  async notFound(q: Queryable, kind: ProjectKind, id: string): Promise<AppError> {
    const suggestions = await similarIdsOfKind(q, kind, id, 5);
    return new AppError('NODE_NOT_FOUND', `${KIND_SPECS[kind].label} with ID '${id}' not found.${suggestions.length ? ` Closest ids: ${suggestions.join(', ')}.` : ''}`, {
      id,
      entity: kind,
      suggestions,
    });
  }

  private async parentNotFound(q: Queryable, kind: ProjectKind, id: string, field: string, ids: string[] = [id]): Promise<AppError> {
    const suggestions = await similarIdsOfKind(q, kind, id, 5);
    return new AppError(
      'PARENT_NOT_FOUND',
      `${KIND_SPECS[kind].label} with ID '${id}' (field '${field}') not found.${suggestions.length ? ` Closest ids: ${suggestions.join(', ')}.` : ''}`,
      { field, entity: kind, ids, suggestions },
    );
  }

  private async link(tx: Queryable, log: (change: TxChange) => void, src: string, dst: string, predicate: string, metadata: Fields) {
    const edge = await insertEdge(tx, {
      id: newId(),
      src,
      dst,
      edge_type: 'Hierarchical',
      predicate,
      weight: 1,
      confidence: 1,
      metadata,
      valid_from: null,
      valid_to: null,
    });
    log({ entity: 'edge', entityId: edge.id, before: null, after: image(edge) });
  }

  private nodeText(kind: ProjectKind, fields: Fields) {
    const spec = KIND_SPECS[kind];
    const title = textOf(fields[spec.titleField]).split('\n')[0]!.slice(0, 256) || spec.label;
    const content =
      spec.textFields
        .map((f) => textOf(fields[f]))
        .filter(Boolean)
        .join('\n\n') || title;
    const tags = Array.isArray(fields.tags) ? (fields.tags as string[]) : [];
    const metadata = { ...fields };
    delete metadata.tags;
    return { topic: title, content, tags, metadata };
  }
}
