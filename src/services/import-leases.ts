import type { Db } from '../store/db.js';
import { renewOwedEmbeddings } from '../store/outbox-repo.js';

/** How often the leases are looked at. */
const TICK_MS = 1_000;
/**
 * A job about to run has its lease renewed to now once it is RENEW_AFTER_MS old: well inside the
 * outbox's shortest lease (10 s), while a job that finishes within a few seconds costs no renewal.
 */
const RENEW_AFTER_MS = 4_000;
/** A lease dated ahead is renewed once it has this much left. */
const RENEW_LEFT_MS = 60_000;

interface Lease {
  nids: readonly number[];
  aheadMs: number;
  leasedAt: number;
}

/**
 * Keeps the outbox rows of this process's waiting import jobs leased until each job is done,
 * however long it waits (a failed job's rows go back to the outbox after the lease).
 */
export class ImportLeases {
  private readonly leases = new Map<string, Lease>();
  private timer: NodeJS.Timeout | null = null;
  private renewing: Promise<void> | null = null;

  constructor(private readonly db: Db) {}

  /**
   * `aheadMs`: 0 for a job about to run (renewed to now every few seconds); more for one that
   * waits behind a whole import (dated ahead once, so 100k waiting rows are not rewritten every
   * few seconds). Resolves once a lease dated ahead is written.
   */
  hold(jobId: string, nodes: ReadonlyArray<{ nid: number }>, finished: Promise<unknown>, aheadMs = 0): Promise<void> {
    const lease: Lease = { nids: nodes.map((n) => n.nid), aheadMs, leasedAt: Date.now() };
    this.leases.set(jobId, lease);
    // Dated ahead now, not at the first tick: until then the rows' lease is the one they had.
    const dated = aheadMs > 0 ? renewOwedEmbeddings(this.db, lease.nids, aheadMs).catch(() => undefined) : Promise.resolve();
    this.timer ??= setInterval(() => this.renewDue(), TICK_MS).unref();
    void finished
      .catch(() => undefined)
      .finally(() => {
        if (this.leases.get(jobId) === lease) this.leases.delete(jobId);
        if (this.leases.size > 0 || !this.timer) return;
        clearInterval(this.timer);
        this.timer = null;
      });
    return dated;
  }

  private renewDue(): void {
    if (this.renewing) return;
    const now = Date.now();
    const due = new Map<number, number[]>();
    for (const lease of this.leases.values()) {
      const renewAfter = lease.aheadMs > 0 ? lease.aheadMs - RENEW_LEFT_MS : RENEW_AFTER_MS;
      if (now - lease.leasedAt < renewAfter) continue;
      lease.leasedAt = now;
      due.set(lease.aheadMs, [...(due.get(lease.aheadMs) ?? []), ...lease.nids]);
    }
    if (due.size === 0) return;
    this.renewing = Promise.all([...due].map(([aheadMs, nids]) => renewOwedEmbeddings(this.db, nids, aheadMs)))
      .then(() => undefined)
      .catch(() => undefined)
      .finally(() => (this.renewing = null));
  }
}
