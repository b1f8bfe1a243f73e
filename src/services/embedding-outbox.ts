import { enqueueJob } from '../jobs/define.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Logger } from '../log.js';
import type { Db } from '../store/db.js';
import { claimOwedEmbeddings, outboxDepth, releaseOwedEmbeddings } from '../store/outbox-repo.js';
import { embedJob, embedJobId } from './embedding.js';

export interface OutboxTiming {
  /** How often the outbox is drained. */
  intervalMs: number;
  /** A row is presumed lost this long after its write or last dispatch while the queue has nothing waiting. */
  idleLeaseMs: number;
  /** ... and this long while jobs wait (a deep queue is slow, not lossy: do not pile duplicates on it). */
  busyLeaseMs: number;
  /** Nodes per re-dispatched embed job. */
  batch: number;
}

export const DEFAULT_OUTBOX_TIMING: OutboxTiming = { intervalMs: 2_000, idleLeaseMs: 10_000, busyLeaseMs: 30_000, batch: 64 };

/**
 * Drains the embedding outbox (db/060) into the job queue. Every node write owes vectors in
 * the same transaction (a trigger), and the embed job settles the debt; this dispatcher
 * re-enqueues debts whose job never ran: Redis was down when the writer tried, or Redis came
 * back empty. So a write acknowledged during a queue outage becomes searchable once the queue
 * is back, with no restart. Delivery stays at-least-once: a duplicate job rewrites the same rows.
 */
export class EmbeddingOutbox {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | null = null;
  private lastError = 0;

  constructor(
    private readonly deps: { db: Db; queue: JobQueue; logger: Logger },
    private readonly timing: OutboxTiming = DEFAULT_OUTBOX_TIMING,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.running ??= this.drain()
        .catch((err) => this.logFailure(err))
        .finally(() => (this.running = null));
    }, this.timing.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass: claims presumed-lost debts and enqueues them; answers how many nodes were dispatched. */
  async drain(): Promise<number> {
    const { db, queue, logger } = this.deps;
    // Counts double as the queue's health check: Redis down, nothing is claimed.
    const counts = await queue.counts();
    const leaseMs = counts.waiting === 0 ? this.timing.idleLeaseMs : this.timing.busyLeaseMs;
    let dispatched = 0;
    let afterNid = 0;
    for (;;) {
      const owed = (await claimOwedEmbeddings(db, { graceMs: leaseMs, leaseMs, limit: this.timing.batch, afterNid })).sort((a, b) => a.nid - b.nid);
      if (owed.length === 0) break;
      const nids = owed.map((o) => o.nid);
      afterNid = nids[nids.length - 1]!;
      try {
        await enqueueJob(queue, embedJob, { nids }, { jobId: embedJobId(nids, `o${owed.reduce((sum, o) => sum + o.version, 0)}`) });
      } catch (err) {
        await releaseOwedEmbeddings(db, nids);
        throw err;
      }
      dispatched += owed.length;
      if (owed.length < this.timing.batch) break;
    }
    if (dispatched > 0) logger.info({ nodes: dispatched }, 'embedding outbox: re-enqueued owed embeddings');
    return dispatched;
  }

  depth(): Promise<{ depth: number; oldest_ms: number }> {
    return outboxDepth(this.deps.db);
  }

  private logFailure(err: unknown): void {
    // An outage fails every pass; one line a minute says so.
    if (Date.now() - this.lastError < 60_000) return;
    this.lastError = Date.now();
    this.deps.logger.warn({ err }, 'embedding outbox: drain failed; retrying');
  }
}
