import type { IndexSync } from '../index/sync.js';
import { enqueueJob } from '../jobs/define.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Logger } from '../log.js';
import { embedJob, embedJobId } from './embedding.js';

export interface ScheduledEmbedding {
  /** True once the vectors are in this process's indexes (lexical search finds the nodes at once either way). */
  searchable: boolean;
  jobId: string | null;
}

/**
 * Every writer's way to get vectors for nodes it committed: one embed job per batch, with an
 * idempotent id per (nodes, versions), so a retry or a second writer never embeds twice.
 */
export class EmbeddingScheduler {
  constructor(
    private readonly deps: {
      queue: JobQueue;
      /** This process's index replicas; null in processes without indexes. */
      indexSync: IndexSync | null;
      logger: Logger;
      /** How long a write waits for its vectors; 0 answers at once (distributed mode). */
      waitMs: number;
    },
  ) {}

  /**
   * Call after committing nodes whose embedding text is new or changed. Embedded mode waits
   * (bounded) so the next query sees the vectors; a failure here only delays embedding, which
   * the backlog scan at start-up repairs, so it never turns an acknowledged write into an error.
   */
  async schedule(nodes: ReadonlyArray<{ nid: number; version: number; id: string }>, opts: { wait?: boolean } = {}): Promise<ScheduledEmbedding> {
    if (nodes.length === 0) return { searchable: true, jobId: null };
    try {
      const nids = nodes.map((n) => n.nid);
      const handle = await enqueueJob(this.deps.queue, embedJob, { nids }, { jobId: embedJobId(nids, nodes.map((n) => n.version).join('.')) });
      if ((opts.wait ?? true) && this.deps.waitMs > 0 && this.deps.indexSync) {
        await handle.finished(this.deps.waitMs);
        await this.deps.indexSync.pull();
        return { searchable: true, jobId: handle.id };
      }
      return { searchable: false, jobId: handle.id };
    } catch (err) {
      this.deps.logger.warn({ err, ids: nodes.map((n) => n.id) }, 'embedding not ready in time; it continues in the background');
      return { searchable: false, jobId: null };
    }
  }
}
