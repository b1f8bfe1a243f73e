import { createHash } from 'node:crypto';
import { ulid } from 'ulid';
import type { IndexSync } from '../index/sync.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Logger } from '../log.js';
import type { Db } from '../store/db.js';
import { insertNode, type NodeRecord } from '../store/nodes-repo.js';
import { recordTransaction } from '../store/tx-log.js';
import { EMBED_JOB, embedJobId, type EmbedJobPayload } from './embedding.js';

export interface StoreMemoryInput {
  content: string;
  topic?: string | undefined;
  tags?: string[] | undefined;
  project_id: string;
  memory_type: string;
  importance?: number | undefined;
  confidence?: number | undefined;
  source_uri?: string | undefined;
}

export interface StoreMemoryResult {
  node: NodeRecord;
  txId: number;
  /** True once the memory's vectors are in this process's indexes (lexical search finds it at once). */
  searchable: boolean;
  embeddingJobId: string | null;
}

/** Hash of the content as a reader sees it: case and white space do not make a new fact. */
export function contentHash(content: string): string {
  return createHash('sha256').update(content.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase()).digest('hex');
}

export class MemoryService {
  constructor(
    private readonly deps: {
      db: Db;
      queue: JobQueue;
      indexSync: IndexSync | null;
      logger: Logger;
      /** How long `store` waits for its vectors; 0 answers at once (distributed mode). */
      embedWaitMs: number;
    },
  ) {}

  async store(input: StoreMemoryInput, actor: string | null = null): Promise<StoreMemoryResult> {
    const { db, queue, logger } = this.deps;
    const { node, txId } = await db.transaction(async (tx) => {
      const node = await insertNode(tx, {
        id: ulid(),
        kind: 'memory',
        project_id: input.project_id,
        memory_type: input.memory_type,
        topic: input.topic ?? null,
        content: input.content,
        tags: input.tags ?? [],
        source_uri: input.source_uri ?? null,
        importance: input.importance ?? 0.5,
        confidence: input.confidence ?? 1,
        metadata: {},
        content_hash: contentHash(input.content),
        valid_from: null,
        valid_to: null,
      });
      const txId = await recordTransaction(tx, 'store', [{ entity: 'node', entityId: node.id, before: null, after: node }], { actor });
      return { node, txId };
    });

    // The write is committed: from here on a failure only delays embedding, which the backlog
    // scan at start-up repairs, so it must not turn an acknowledged write into an error.
    let embeddingJobId: string | null = null;
    let searchable = false;
    try {
      const payload: EmbedJobPayload = { nids: [node.nid] };
      const handle = await queue.enqueue(EMBED_JOB, payload, { jobId: embedJobId([node.nid], node.version) });
      embeddingJobId = handle.id;
      if (this.deps.embedWaitMs > 0 && this.deps.indexSync) {
        await handle.finished(this.deps.embedWaitMs);
        await this.deps.indexSync.pull();
        searchable = true;
      }
    } catch (err) {
      logger.warn({ err, id: node.id }, 'embedding not ready in time; it continues in the background');
    }
    return { node, txId, searchable, embeddingJobId };
  }
}
