import type { Logger } from '../log.js';
import type { Db } from '../store/db.js';
import { insertNode, liveNodesByHash, nodeById, type NodeRecord } from '../store/nodes-repo.js';
import { isEmbeddingOwed } from '../store/outbox-repo.js';
import { DEFAULT_COLLECTION, requireCollection } from './collections.js';
import type { EmbeddingScheduler } from './embedding-scheduler.js';
import type { SearchService } from './search.js';
import { image, newNode, writeTransaction } from './writes.js';

export interface StoreMemoryInput {
  content: string;
  topic?: string | undefined;
  tags?: string[] | undefined;
  project_id: string;
  /** The project's collection; 'default' unless given, else it must exist (new_collection). */
  collection?: string | undefined;
  memory_type: string;
  importance?: number | undefined;
  confidence?: number | undefined;
  source_uri?: string | undefined;
  valid_from?: Date | undefined;
  valid_to?: Date | undefined;
  /** Why it is stored (store_memory requires one): recorded on the transaction. */
  rationale?: string | undefined;
}

export interface StoreMemoryResult {
  /** True when an earlier call with the same idempotency key made this write and nothing was written now. */
  replayed: boolean;
  node: NodeRecord;
  txId: number;
  /** True once every vector of the memory is in this process's indexes. */
  searchable: boolean;
  /** True once keyword search finds it (written at store time, whatever the queue's state). */
  keywordSearchable: boolean;
  embeddingJobId: string | null;
  /** Live entries of the same project with the same content (exact) or nearly the same meaning (near). */
  possibleDuplicates: Array<{ id: string; score: number; match: 'exact' | 'near' }>;
}

/** E1 cosine from which a stored memory is reported as a near duplicate of another. */
export const NEAR_DUPLICATE_SIMILARITY = 0.9;

export class MemoryService {
  /**
   * E1 vectors of stores that answered before their vectors reached the index, by nid: the next
   * store's near-duplicate check compares them directly, so a burst of stores still reports
   * the copies it holds.
   */
  private readonly unindexed = new Map<number, { projectId: string; collection: string; vector: Float32Array }>();

  constructor(
    private readonly deps: {
      db: Db;
      embedding: Pick<EmbeddingScheduler, 'schedule'>;
      logger: Logger;
      /** For near-duplicate checks on store; absent in processes without indexes. */
      search?: SearchService;
    },
  ) {}

  async store(input: StoreMemoryInput, actor: string | null = null): Promise<StoreMemoryResult> {
    const { db } = this.deps;
    const fields = newNode({
      kind: 'memory',
      project_id: input.project_id,
      collection: input.collection ?? DEFAULT_COLLECTION,
      memory_type: input.memory_type,
      topic: input.topic ?? null,
      content: input.content,
      tags: input.tags ?? [],
      source_uri: input.source_uri ?? null,
      importance: input.importance ?? 0.5,
      confidence: input.confidence ?? 1,
      valid_from: input.valid_from ?? null,
      valid_to: input.valid_to ?? null,
    });
    // The duplicate check's vector is a function of the text alone: it is made on the embedding
    // pool while the write commits.
    const duplicateVector = this.deps.search?.duplicateVector(input.content).catch((err: unknown) => {
      this.deps.logger.debug({ err }, 'near-duplicate check skipped');
      return null;
    });
    const { result: node, txId } = await writeTransaction(db, 'store', { actor, rationale: input.rationale ?? null }, async (tx, log) => {
      await requireCollection(tx, input.project_id, fields.collection ?? DEFAULT_COLLECTION);
      const node = await insertNode(tx, fields);
      log({ entity: 'node', entityId: node.id, before: null, after: image(node) });
      return node;
    });
    this.deps.logger.info({ id: node.id, project: node.project_id, tx_id: txId, actor, chars: node.content.length }, 'memory stored');
    // The write answers once its embed job is queued: this process's searches wait for the
    // vectors instead (PendingVectors), so back-to-back stores do not wait for each other's.
    const scheduled = this.deps.embedding.schedule([node], { answerFirst: true });
    const vector = (await duplicateVector) ?? null;
    const [{ searchable, keywordSearchable, jobId: embeddingJobId, indexed }, possibleDuplicates] = await Promise.all([scheduled, this.duplicatesOf(node, vector)]);
    if (indexed && vector) {
      this.unindexed.set(node.nid, { projectId: node.project_id, collection: node.collection, vector });
      void indexed.then(() => this.unindexed.delete(node.nid));
    }
    return { replayed: false, node, txId, searchable, keywordSearchable, embeddingJobId, possibleDuplicates };
  }

  /**
   * An earlier store rebuilt from the store (for an idempotent retry whose first answer was lost
   * in a crash); null when the memory is gone.
   */
  async stored(id: string, txId: number): Promise<StoreMemoryResult | null> {
    const { db } = this.deps;
    const node = await nodeById(db, id);
    if (!node) return null;
    const embedded = !(await isEmbeddingOwed(db, node.nid));
    return { replayed: true, node, txId, searchable: embedded, keywordSearchable: embedded, embeddingJobId: null, possibleDuplicates: [] };
  }

  /**
   * Reported, never acted on: the agent decides whether to merge, supersede or keep both
   * (silent dedupe loses facts that differ only in a number, which embeddings barely see).
   */
  private async duplicatesOf(node: NodeRecord, vector: Float32Array | null): Promise<StoreMemoryResult['possibleDuplicates']> {
    const exact = (await liveNodesByHash(this.deps.db, node.project_id, [node.content_hash], node.collection)).filter((n) => n.nid !== node.nid);
    const seen = new Set(exact.map((n) => n.id));
    const out: StoreMemoryResult['possibleDuplicates'] = exact.slice(0, 5).map((n) => ({ id: n.id, score: 1, match: 'exact' as const }));
    if (this.deps.search && vector) {
      try {
        const unindexed = [...this.unindexed].filter(([, u]) => u.projectId === node.project_id && u.collection === node.collection).map(([nid, u]) => ({ nid, vector: u.vector }));
        const near = await this.deps.search.nearDuplicatesOf(vector, {
          projectId: node.project_id,
          collection: node.collection,
          excludeNid: node.nid,
          minSimilarity: NEAR_DUPLICATE_SIMILARITY,
          limit: 3,
          unindexed,
        });
        for (const n of near) if (!seen.has(n.node.id)) out.push({ id: n.node.id, score: Math.round(n.similarity * 1000) / 1000, match: 'near' });
      } catch (err) {
        this.deps.logger.debug({ err }, 'near-duplicate check skipped');
      }
    }
    return out;
  }
}
