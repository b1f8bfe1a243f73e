import { newId } from '../ids.js';
import { AppError } from '../errors.js';
import type { Db, Queryable } from '../store/db.js';
import {
  collectionByIdForUpdate,
  collectionByName,
  collectionExists,
  collectionFigures,
  deleteCollectionRow,
  insertCollection,
  lastChunkSize,
  restoreCollectionRow,
  type CollectionFigures,
  type CollectionRow,
} from '../store/collections-repo.js';
import type { Image } from './images.js';
import { image, writeTransaction } from './writes.js';

/**
 * Collections (seed 004): a collection is a namespace inside a project. Every node carries one
 * (`nodes.collection`, 'default' unless given); a project's 'default' always exists, any other
 * is declared with `new_collection` (a `collections` row, logged as the entity 'collection', so
 * history lists it and undo removes it). Push dedupes per (project, collection), and a search's
 * `collection` filter is one more facet condition applied while candidates are generated.
 */
export const DEFAULT_COLLECTION = 'default';

/** What a collection name may be (new_collection and import check it with these). */
export const COLLECTION_NAME = { max: 64, pattern: /^[\w.:@/-]+$/, rule: 'letters, digits and . _ : @ / - only' } as const;

export type { CollectionFigures };

export interface CreateCollectionResult {
  /** False when the project already had it: nothing was written. */
  created: boolean;
  txId: number;
  collection: CollectionRow | null;
}

export interface CollectionMetrics {
  documentsIndexed: number;
  chunksIndexed: number;
  lastChunkSize: number | null;
  memories: number;
  bytes: number;
  collections: CollectionFigures[];
}

/**
 * INVALID_PARAMS unless `name` is a collection of the project (of some project when none is
 * given), naming the ones that exist so the caller can correct the call.
 */
export async function requireCollection(q: Queryable, projectId: string | null, name: string): Promise<void> {
  if (name === DEFAULT_COLLECTION || (await collectionExists(q, projectId, name))) return;
  const known = [...new Set([DEFAULT_COLLECTION, ...(await collectionFigures(q, projectId)).map((c) => c.name)])].sort();
  const where = projectId === null ? 'in any project' : `in project "${projectId}"`;
  const message = `Unknown collection "${name}" ${where}. Existing collections: ${known.join(', ')}. Create it with new_collection first.`;
  throw new AppError('INVALID_PARAMS', message, {
    issues: [{ path: 'collection', message: `unknown collection; one of: ${known.join(', ')}` }],
    collection: name,
    project_id: projectId,
    collections: known,
  });
}

/**
 * Undo/redo of a logged collection change: writes the declaration back to `target` (null: it
 * did not exist) and answers the images before and after, for the revert's own log entry.
 */
export async function revertCollection(tx: Queryable, id: string, target: Image | null): Promise<{ before: Image | null; after: Image | null }> {
  const current = await collectionByIdForUpdate(tx, id);
  const before = current ? (image(current) as unknown as Image) : null;
  if (target === null) {
    if (current) await deleteCollectionRow(tx, id);
    return { before, after: null };
  }
  return { before, after: image(await restoreCollectionRow(tx, target)) as unknown as Image };
}

export class CollectionsService {
  constructor(private readonly deps: { db: Db }) {}

  /** Declares a collection in one logged transaction; an existing one is answered as it is. */
  async create(input: { project_id: string; name: string; description?: string | undefined }, actor: string | null): Promise<CreateCollectionResult> {
    if (input.name === DEFAULT_COLLECTION) return { created: false, txId: 0, collection: null };
    const { txId, result } = await writeTransaction(this.deps.db, 'new_collection', { actor }, async (tx, log) => {
      const row = await insertCollection(tx, { id: newId(), project_id: input.project_id, name: input.name, description: input.description ?? null });
      if (!row) return { created: false, collection: await collectionByName(tx, input.project_id, input.name) };
      log({ entity: 'collection', entityId: row.id, before: null, after: image(row) });
      return { created: true, collection: row };
    });
    return { ...result, txId };
  }

  async require(projectId: string | undefined, name: string): Promise<void> {
    await requireCollection(this.deps.db, projectId ?? null, name);
  }

  /**
   * Every collection of the project (of every project when none is given) with its figures;
   * a named project always lists its 'default'.
   */
  async list(projectId: string | undefined): Promise<CollectionFigures[]> {
    const rows = await collectionFigures(this.deps.db, projectId ?? null);
    if (projectId !== undefined && !rows.some((r) => r.name === DEFAULT_COLLECTION)) {
      rows.unshift({
        project_id: projectId,
        name: DEFAULT_COLLECTION,
        id: null,
        description: null,
        created_at: null,
        memories: 0,
        chunks: 0,
        documents: 0,
        bytes: 0,
        last_write_at: null,
      });
    }
    return rows;
  }

  /** Ingestion figures (seed 004's metrics tool) over a project and/or collection, from the stored nodes. */
  async metrics(scope: { projectId?: string | undefined; collection?: string | undefined }): Promise<CollectionMetrics> {
    const { db } = this.deps;
    if (scope.collection !== undefined) await requireCollection(db, scope.projectId ?? null, scope.collection);
    const collections = await collectionFigures(db, scope.projectId ?? null, scope.collection ?? null);
    const sum = (key: 'documents' | 'chunks' | 'memories' | 'bytes') => collections.reduce((n, c) => n + c[key], 0);
    return {
      documentsIndexed: sum('documents'),
      chunksIndexed: sum('chunks'),
      lastChunkSize: await lastChunkSize(db, scope.projectId ?? null, scope.collection ?? null),
      memories: sum('memories'),
      bytes: sum('bytes'),
      collections,
    };
  }
}
