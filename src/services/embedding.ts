import { z } from 'zod';
import type { Embedder } from '../embed/embedder.js';
import { defineJob, enqueueJob, type JobHandlerContext } from '../jobs/define.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Logger } from '../log.js';
import type { Db } from '../store/db.js';
import { writeEmbeddings, type EmbeddingWrite } from '../store/embeddings-repo.js';
import { nidsMissingEmbedding, nodesByNid } from '../store/nodes-repo.js';

/** What an embedding for a node is made from: the topic carries meaning the content may not repeat. */
export function embeddingText(node: { topic: string | null; content: string }): string {
  return node.topic ? `${node.topic}\n${node.content}` : node.content;
}

const embedProgress = z.object({
  /** Live nodes of the payload whose vectors are written. */
  embedded: z.number().int().nonnegative(),
  /** Nodes in the payload, deleted ones included. */
  total: z.number().int().nonnegative(),
});

export interface EmbedJobDeps {
  db: Db;
  embedder: Embedder;
}

/**
 * The `embed` job: computes every enabled space's vector for the given nodes and upserts them.
 * Idempotent: a retry or a duplicate delivery rewrites the same rows.
 */
export const embedJob = defineJob({
  type: 'embed',
  payload: z.object({ nids: z.array(z.number().int().positive()).min(1) }),
  progress: embedProgress,
  result: z.object({ embedded: z.number().int().nonnegative() }),
  async handler({ nids }, { deps, report }: JobHandlerContext<z.input<typeof embedProgress>, EmbedJobDeps>) {
    const nodes = (await nodesByNid(deps.db, nids)).filter((n) => n.deleted_at === null);
    if (nodes.length === 0) return { embedded: 0 };
    const vectors = await deps.embedder.embed(nodes.map(embeddingText));
    const writes: EmbeddingWrite[] = [];
    for (const enc of deps.embedder.encoders()) {
      const list = vectors.get(enc.space);
      if (!list) continue;
      nodes.forEach((node, i) => writes.push({ nid: node.nid, space: enc.space, modelId: enc.modelId, vector: list[i]! }));
    }
    await writeEmbeddings(deps.db, writes);
    await report({ embedded: nodes.length, total: nids.length });
    return { embedded: nodes.length };
  },
});

/** The embed job's name on the queue, for code that enqueues it by name (bench/load.ts). */
export const EMBED_JOB = embedJob.type;

/**
 * The dedupe key of an embed job: the same nodes at the same version are embedded once while
 * a job for them waits or runs.
 */
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
    await enqueueJob(deps.queue, embedJob, { nids: chunk }, { jobId: embedJobId(chunk, 'backlog') });
  }
  if (all.length > 0) deps.logger.info({ nodes: all.length }, 'queued embedding backlog');
  return all.length;
}
