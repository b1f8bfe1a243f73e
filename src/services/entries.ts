import { newId } from '../ids.js';
import { AppError } from '../errors.js';
import type { Db } from '../store/db.js';
import { retractEmbeddings } from '../store/embeddings-repo.js';
import { lockLiveEdgesOfNodes, softDeleteEdges } from '../store/edges-repo.js';
import { closeNode, editNode, insertNode, liveIdsSimilarTo, lockNodesById, recentlyUpdatedIds, softDeleteNodes, transactionNow, type NodeRecord } from '../store/nodes-repo.js';
import type { EmbeddingScheduler } from './embedding-scheduler.js';
import { contentHash, image, writeTransaction } from './writes.js';

export interface UpdateEntryInput {
  id: string;
  content?: string | undefined;
  topic?: string | null | undefined;
  tags?: string[] | undefined;
  importance?: number | undefined;
  confidence?: number | undefined;
  memory_type?: string | undefined;
  source_uri?: string | null | undefined;
  /** ISO timestamp, or null to clear. */
  valid_from?: Date | null | undefined;
  valid_to?: Date | null | undefined;
  /** Keep the old entry as a closed fact and write the new fields to a new entry. */
  supersedes?: boolean | undefined;
  rationale?: string | null | undefined;
}

export interface UpdateEntryResult {
  /** The entry holding the fact now: the new one when superseding. */
  node: NodeRecord;
  txId: number;
  /** The closed entry when superseding, else null. */
  superseded: NodeRecord | null;
}

export interface DeleteEntriesResult {
  txId: number;
  ids: string[];
  edgesDeleted: number;
}

const UPDATABLE = ['content', 'topic', 'tags', 'importance', 'confidence', 'memory_type', 'source_uri', 'valid_from', 'valid_to'] as const;

/** An unknown or deleted id; the update tool adds close ids to the NODE_NOT_FOUND error. */
export class EntryNotFoundError extends AppError {
  constructor(
    readonly id: string,
    readonly deleted: boolean,
  ) {
    super('NODE_NOT_FOUND', deleted ? `Entry ${id} is deleted.` : `No entry has id ${id}.`, { id, deleted });
  }
}

function checkInterval(from: Date | null, to: Date | null): void {
  if (from && to && to.getTime() < from.getTime()) {
    throw new AppError('INVALID_PARAMS', 'valid_to: must not be before valid_from', { issues: [{ path: 'valid_to', message: 'must not be before valid_from' }] });
  }
}

/** Edits and soft deletes of entries (memory nodes), each one logged transaction. */
export class EntriesService {
  constructor(private readonly deps: { db: Db; embedding: (Pick<EmbeddingScheduler, 'schedule'> & Partial<Pick<EmbeddingScheduler, 'graphChanged'>>) | null }) {}

  async update(input: UpdateEntryInput, actor: string | null = null): Promise<UpdateEntryResult> {
    const given = UPDATABLE.filter((f) => input[f] !== undefined);
    if (given.length === 0 && !input.supersedes) {
      throw new AppError('INVALID_PARAMS', `Nothing to update: give at least one of ${UPDATABLE.join(', ')}.`, {
        issues: [{ path: '(arguments)', message: 'no field to update', allowed: [...UPDATABLE] }],
      });
    }
    const validFrom = input.valid_from;
    const validTo = input.valid_to;

    const { result, txId } = await writeTransaction(this.deps.db, input.supersedes ? 'supersede' : 'update', { actor, rationale: input.rationale ?? null }, async (tx, log) => {
      const [old] = await lockNodesById(tx, [input.id]);
      if (!old || old.deleted_at !== null) throw new EntryNotFoundError(input.id, Boolean(old));
      const content = input.content ?? old.content;
      const fields = {
        content,
        topic: input.topic !== undefined ? input.topic : old.topic,
        tags: input.tags ?? old.tags,
        importance: input.importance ?? old.importance,
        confidence: input.confidence ?? old.confidence,
        memory_type: input.memory_type ?? old.memory_type,
        source_uri: input.source_uri !== undefined ? input.source_uri : old.source_uri,
        content_hash: contentHash(content),
      };

      if (!input.supersedes) {
        const from = validFrom !== undefined ? validFrom : old.valid_from;
        const to = validTo !== undefined ? validTo : old.valid_to;
        checkInterval(from, to);
        const row = await editNode(tx, old.id, { ...fields, valid_from: from, valid_to: to });
        log({ entity: 'node', entityId: old.id, before: image(old), after: image(row) });
        return { node: row, superseded: null };
      }

      const supersededBy = old.metadata.superseded_by;
      if (old.valid_to !== null || typeof supersededBy === 'string') {
        throw new AppError(
          'CONFLICT',
          `Entry ${old.id} is already closed${typeof supersededBy === 'string' ? ` (superseded by ${supersededBy})` : ''}; update the current entry instead.`,
          {
            id: old.id,
            superseded_by: supersededBy ?? null,
          },
        );
      }
      // The new fact holds from valid_from (default now); the old one holds until then.
      const now = await transactionNow(tx);
      const from = validFrom ?? now;
      const to = validTo ?? null;
      checkInterval(from, to);
      const fresh = await insertNode(tx, {
        id: newId(),
        kind: old.kind,
        project_id: old.project_id,
        collection: old.collection,
        ...fields,
        metadata: { ...old.metadata, supersedes: old.id },
        valid_from: from,
        valid_to: to,
      });
      const closeAt = old.valid_from && old.valid_from.getTime() > from.getTime() ? old.valid_from : from;
      const closed = await closeNode(tx, old.id, closeAt, fresh.id);
      log({ entity: 'node', entityId: old.id, before: image(old), after: image(closed) });
      log({ entity: 'node', entityId: fresh.id, before: null, after: image(fresh) });
      return { node: fresh, superseded: closed };
    });

    const embeddingChanged = result.superseded !== null || input.content !== undefined || input.topic !== undefined;
    if (embeddingChanged && this.deps.embedding) await this.deps.embedding.schedule([result.node]);
    return { node: result.node, txId, superseded: result.superseded };
  }

  /** Soft-deletes entries and the edges touching them, in one transaction. */
  async delete(input: { ids: readonly string[]; rationale?: string | null | undefined }, actor: string | null = null): Promise<DeleteEntriesResult> {
    const ids = [...new Set(input.ids)];
    const { result, txId, changes } = await writeTransaction(this.deps.db, 'delete', { actor, rationale: input.rationale ?? null }, async (tx, log) => {
      const rows = await lockNodesById(tx, ids);
      const found = new Map(rows.map((r) => [r.id, r]));
      const missing = ids.filter((id) => !found.has(id));
      if (missing.length > 0) {
        throw new AppError('NODE_NOT_FOUND', `No entr${missing.length === 1 ? 'y has' : 'ies have'} id ${missing.join(', ')}.`, { ids: missing });
      }
      const gone = rows.filter((r) => r.deleted_at !== null);
      if (gone.length > 0) {
        throw new AppError('CONFLICT', `Entr${gone.length === 1 ? 'y' : 'ies'} ${gone.map((r) => r.id).join(', ')} ${gone.length === 1 ? 'is' : 'are'} already deleted.`, {
          ids: gone.map((r) => r.id),
          already_deleted: true,
        });
      }
      const deleted = await softDeleteNodes(tx, ids);
      const byId = new Map(deleted.map((r) => [r.id, r]));
      for (const id of ids) log({ entity: 'node', entityId: id, before: image(found.get(id)!), after: image(byId.get(id)!) });

      const edgesBefore = await lockLiveEdgesOfNodes(tx, ids);
      const afterById = new Map(
        (
          await softDeleteEdges(
            tx,
            edgesBefore.map((e) => e.id),
          )
        ).map((e) => [e.id, e]),
      );
      for (const e of edgesBefore) log({ entity: 'edge', entityId: e.id, before: image(e), after: image(afterById.get(e.id)!) });
      await retractEmbeddings(
        tx,
        rows.map((r) => r.nid),
      );
      return { ids, edgesDeleted: edgesBefore.length };
    });
    // The other ends of the deleted edges lost a neighbour: their E8 (graph) vectors move.
    await this.deps.embedding?.graphChanged?.(changes);
    return { txId, ...result };
  }

  /**
   * Ids to offer for a mistyped one: the live ids most similar to `text` (trigram similarity),
   * or, when none is similar, the most recently updated live ids.
   */
  async suggestIds(text: string, limit = 5): Promise<{ ids: string[]; basis: 'similar' | 'recent' }> {
    const similar = await liveIdsSimilarTo(this.deps.db, text, limit);
    if (similar.length > 0) return { ids: similar, basis: 'similar' };
    return { ids: await recentlyUpdatedIds(this.deps.db, limit), basis: 'recent' };
  }
}
