import { enqueueJob } from '../jobs/define.js';
import type { JobHandle, JobQueue } from '../jobs/queue.js';
import type { Logger } from '../log.js';
import { embedJob } from './embedding.js';
import type { ScheduledEmbedding, WrittenNode } from './embedding-scheduler.js';
import type { PendingVectors } from './pending-vectors.js';

/**
 * How long a burst of answer-first writes gathers before its embed job is queued (unless a read
 * waits for it, or it is full): one job then carries several writes' vectors in one transaction,
 * one encoding task and one index batch.
 */
const BURST_GATHER_MS = 20;
const BURST_MAX = 3;

interface Burst {
  nodes: WrittenNode[];
  jobId: string;
  since: number;
  indexed: Promise<void>;
  settle: (run: Promise<void>) => void;
}

/**
 * Answer-first writes (an embedded `store`) made while an answer-first embed job runs: they join
 * the burst that becomes one job once that one ends, so a run of stores shares one vector
 * transaction, one encoding task and one index batch instead of one each. A store that joined
 * answers with the burst's job id at once; the job is queued a moment later.
 */
export class StoreBursts {
  /** An answer-first embed job runs (or is being queued): the next answer-first write joins the burst. */
  running = false;
  private burst: Burst | null = null;
  /** Set while the gathering burst waits out BURST_GATHER_MS with no job running. */
  private gathering: NodeJS.Timeout | null = null;
  /** A reader waits for the gathering burst: it is queued as soon as no job runs. */
  private wanted = false;
  /** Bursts whose id stores already answered and that are not on the queue yet: id → when the first store joined. */
  private readonly unqueued = new Map<string, number>();

  constructor(
    private readonly deps: {
      queue: JobQueue;
      logger: Logger;
      /** How long a write waits for its vectors (EmbeddingScheduler's waitMs). */
      waitMs: number;
      pending: PendingVectors;
      /** The job's vectors in this process's indexes (`done`), then its follow-up jobs queued (EmbeddingScheduler.followJob). */
      follow: (handle: JobHandle<{ feed_seq?: number | undefined }>, nodes: readonly WrittenNode[]) => { done: Promise<void>; followUps: Promise<void> };
      /** Keyword vectors written at once, for nodes whose job could not be queued. */
      writeKeywordVectors: (nids: number[]) => Promise<boolean>;
    },
  ) {
    deps.pending.onAwaited(() => this.flush());
  }

  join(nodes: readonly WrittenNode[]): ScheduledEmbedding {
    if (!this.burst) {
      let settle!: (run: Promise<void>) => void;
      const indexed = new Promise<void>((resolve, reject) => (settle = (run) => void run.then(resolve, reject)));
      const first = nodes[0]!;
      this.burst = { nodes: [], jobId: `embed-${first.nid}-v${first.version}-burst`, since: performance.now(), indexed, settle };
      this.unqueued.set(this.burst.jobId, Date.now());
    }
    const burst = this.burst;
    burst.nodes.push(...nodes);
    if (burst.nodes.length >= BURST_MAX) this.flush();
    return { searchable: true, keywordSearchable: true, jobId: burst.jobId, indexed: this.deps.pending.track(burst.indexed) };
  }

  /**
   * Once the last answer-first job ended: queues the burst gathered meanwhile, after letting it
   * gather for up to BURST_GATHER_MS unless a reader waits or it is full; with none, notes that
   * no job runs now.
   */
  next(): void {
    const burst = this.burst;
    if (!burst) {
      this.running = false;
      return;
    }
    const wait = burst.since + BURST_GATHER_MS - performance.now();
    if (!this.wanted && wait > 0 && burst.nodes.length < BURST_MAX) {
      this.gathering = setTimeout(() => {
        this.gathering = null;
        this.next();
      }, wait);
      return;
    }
    this.burst = null;
    this.wanted = false;
    burst.settle(this.queue(burst));
  }

  /**
   * When `jobId` names a burst whose stores answered with it and that is not on the queue yet
   * (it gathers, or waits for the running job to end), its job name and when its first store
   * joined: the job exists for its callers, who may read its record before it is queued.
   */
  unqueuedJob(jobId: string): { name: string; createdAt: Date } | null {
    const since = this.unqueued.get(jobId);
    return since === undefined ? null : { name: embedJob.type, createdAt: new Date(since) };
  }

  /** A reader waits (or the burst is full): the burst goes as soon as no answer-first job runs. */
  private flush(): void {
    if (!this.burst) return;
    this.wanted = true;
    if (this.gathering) {
      clearTimeout(this.gathering);
      this.gathering = null;
      this.next();
    }
  }

  private async queue(burst: Burst): Promise<void> {
    const nids = burst.nodes.map((n) => n.nid);
    let handle: JobHandle<{ feed_seq?: number | undefined }>;
    try {
      handle = await enqueueJob(this.deps.queue, embedJob, { nids, defer_fingerprints: true }, { jobId: burst.jobId });
    } catch (err) {
      this.unqueued.delete(burst.jobId);
      // The debt is in the outbox, which queues it again once the queue is back; keyword search finds them meanwhile.
      this.running = false;
      this.deps.logger.warn({ err, nodes: nids.length }, 'embedding not queued; the outbox re-enqueues it');
      await this.deps.writeKeywordVectors(nids);
      return;
    }
    this.unqueued.delete(burst.jobId);
    void handle
      .finished(this.deps.waitMs)
      .catch(() => undefined)
      .then(() => this.next());
    const { done, followUps } = this.deps.follow(handle, burst.nodes);
    await done;
    await followUps;
  }
}
