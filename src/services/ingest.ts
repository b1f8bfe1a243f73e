import type { Db } from '../store/db.js';
import { insertNode, liveChunksBySource, liveNodesByHash, rewriteContent, type NodeRecord } from '../store/nodes-repo.js';
import { chunkText } from './chunking.js';
import { DEFAULT_COLLECTION, requireCollection } from './collections.js';
import type { EmbeddingScheduler } from './embedding-scheduler.js';
import { contentHash, image, newNode, writeTransaction } from './writes.js';

export interface PushInput {
  text: string;
  project_id: string;
  /** The project's collection; 'default' unless given, else it must exist (new_collection). */
  collection?: string | undefined;
  memory_type: string;
  tags: string[];
  source_uri?: string | undefined;
  topic?: string | undefined;
  chunk_size: number;
}

export interface PushResult {
  txId: number;
  chunks: number;
  inserted: string[];
  updated: string[];
  skipped: string[];
  embedding: { searchable: boolean; jobIds: string[] };
}

const EMBED_BATCH = 128;

/**
 * `push` (seed 004): chunk a document, hash every chunk, and write only what is new in one
 * transaction. A chunk whose hash already lives in the project's collection is skipped; with a source_uri, a
 * changed chunk at the same position replaces the old one (`updated`), so re-pushing an edited
 * document rewrites only what changed.
 */
export class IngestService {
  constructor(private readonly deps: { db: Db; embedding: Pick<EmbeddingScheduler, 'schedule'> }) {}

  async push(input: PushInput, actor: string | null, onProgress?: (done: number, total: number) => Promise<void>): Promise<PushResult> {
    const chunks = chunkText(input.text, input.chunk_size);
    const documentHash = contentHash(input.text);
    const collection = input.collection ?? DEFAULT_COLLECTION;
    const { txId, result } = await writeTransaction(this.deps.db, 'push', { actor }, async (tx, log) => {
      await requireCollection(tx, input.project_id, collection);
      const hashes = chunks.map((c) => contentHash(c.text));
      const existing = new Map((await liveNodesByHash(tx, input.project_id, hashes, collection)).map((n) => [n.content_hash, n]));
      const byIndex = new Map<number, NodeRecord>();
      if (input.source_uri) {
        for (const n of await liveChunksBySource(tx, input.project_id, input.source_uri, collection)) {
          const index = (n.metadata as { chunk_index?: unknown }).chunk_index;
          if (typeof index === 'number') byIndex.set(index, n);
        }
      }
      const inserted: NodeRecord[] = [];
      const updated: NodeRecord[] = [];
      const skipped: string[] = [];
      for (const [i, chunk] of chunks.entries()) {
        const hash = hashes[i]!;
        const metadata = { chunk_index: chunk.index, chunk_count: chunks.length, chunk_tokens: chunk.tokens, chunk_size: input.chunk_size, document_hash: documentHash };
        const same = existing.get(hash);
        if (same) {
          skipped.push(same.id);
          continue;
        }
        const previous = byIndex.get(chunk.index);
        if (previous) {
          const after = await rewriteContent(tx, previous.nid, chunk.text, hash, { ...previous.metadata, ...metadata });
          log({ entity: 'node', entityId: after.id, before: image(previous), after: image(after) });
          updated.push(after);
          existing.set(hash, after);
          continue;
        }
        const node = await insertNode(
          tx,
          newNode({
            kind: 'chunk',
            project_id: input.project_id,
            collection,
            memory_type: input.memory_type,
            topic: input.topic ?? null,
            content: chunk.text,
            tags: input.tags,
            source_uri: input.source_uri ?? null,
            metadata,
            content_hash: hash,
          }),
        );
        log({ entity: 'node', entityId: node.id, before: null, after: image(node) });
        inserted.push(node);
        existing.set(hash, node);
      }
      return { inserted, updated, skipped };
    });

    // Embedding is background work: batches become jobs; embedded mode waits for them up to its
    // bounded budget, reporting progress, and answers either way.
    const changed = [...result.inserted, ...result.updated];
    const jobIds: string[] = [];
    let searchable = true;
    for (let i = 0; i < changed.length; i += EMBED_BATCH) {
      const batch = changed.slice(i, i + EMBED_BATCH);
      // Once one batch missed its wait, the rest are queued without waiting.
      const r = await this.deps.embedding.schedule(batch, { wait: searchable });
      if (r.jobId) jobIds.push(r.jobId);
      searchable &&= r.searchable;
      await onProgress?.(Math.min(i + EMBED_BATCH, changed.length), changed.length);
    }
    return {
      txId,
      chunks: chunks.length,
      inserted: result.inserted.map((n) => n.id),
      updated: result.updated.map((n) => n.id),
      skipped: result.skipped,
      embedding: { searchable, jobIds },
    };
  }
}
