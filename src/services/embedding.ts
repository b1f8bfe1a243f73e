import type { Embedder } from '../embed/embedder.js';
import type { Logger } from '../log.js';
import type { Db } from '../store/db.js';
import { writeEmbeddings, type EmbeddingWrite } from '../store/embeddings-repo.js';
import { nidsMissingEmbedding, nodesByNid } from '../store/nodes-repo.js';
import type { JobContext, JobQueue } from '../jobs/queue.js';

export const EMBED_JOB = 'embed';

export interface EmbedJobPayload {
  nids: number[];
}

/** What an embedding for a node is made from: the topic carries meaning the content may not repeat. */
export function embeddingText(node: { topic: string | null; content: string }): string {
  return node.topic ? `${node.topic}\n${node.content}` : node.content;
}

/**
 * The `embed` job: computes every enabled space's vector for the given nodes and upserts them.
 * Idempotent: a retry or a duplicate delivery rewrites the same rows.
 */
export function createEmbedJobHandler(deps: { db: Db; embedder: Embedder; logger: Logger }) {
  return async (payload: EmbedJobPayload, ctx: JobContext): Promise<{ embedded: number }> => {
    const nodes = (await nodesByNid(deps.db, payload.nids)).filter((n) => n.deleted_at === null);
    if (nodes.length === 0) return { embedded: 0 };
    const encoders = deps.embedder.encoders();
    const vectors = await deps.embedder.embed(nodes.map(embeddingText));
    const writes: EmbeddingWrite[] = [];
    for (const enc of encoders) {
      const list = vectors.get(enc.space);
      if (!list) continue;
      nodes.forEach((node, i) => writes.push({ nid: node.nid, space: enc.space, modelId: enc.modelId, vector: list[i]! }));
    }
    await writeEmbeddings(deps.db, writes);
    await ctx.reportProgress({ embedded: nodes.length, total: payload.nids.length });
    return { embedded: nodes.length };
  };
}

export function embedJobId(nids: readonly number[], version: number | string = 1): string {
  return nids.length === 1 ? `embed-${nids[0]}-v${version}` : `embed-${nids[0]}-${nids[nids.length - 1]}-${nids.length}-v${version}`;
}

/**
 * Enqueues embedding for live nodes that lack a vector from the active model of a space: writes
 * whose job was lost (a crash of the in-process queue) and memories stored under another model.
 */
export async function enqueueEmbeddingBacklog(deps: { db: Db; queue: JobQueue; embedder: Embedder; logger: Logger }, batch = 256): Promise<number> {
  const missing = new Set<number>();
  for (const enc of deps.embedder.encoders()) {
    let after = 0;
    for (;;) {
      const nids = await nidsMissingEmbedding(deps.db, enc.space, enc.modelId, after, 10_000);
      for (const nid of nids) missing.add(nid);
      if (nids.length < 10_000) break;
      after = nids[nids.length - 1]!;
    }
  }
  const all = [...missing].sort((a, b) => a - b);
  for (let i = 0; i < all.length; i += batch) {
    const chunk = all.slice(i, i + batch);
    await deps.queue.enqueue(EMBED_JOB, { nids: chunk } satisfies EmbedJobPayload, { jobId: embedJobId(chunk, 'backlog') });
  }
  if (all.length > 0) deps.logger.info({ nodes: all.length }, 'queued embedding backlog');
  return all.length;
}
