import type { IndexSync } from '../index/sync.js';
import type { JobHandle } from '../jobs/queue.js';
import type { Logger } from '../log.js';

/** A stored memory whose vectors are not in this process's indexes yet, with its E1 vector when known. */
export interface PendingMemory {
  nid: number;
  projectId: string;
  collection: string;
  /** E1 vector computed at store time (near-duplicate check), unit length; null when not computed. */
  e1: Float32Array | null;
}

/**
 * Read-your-writes without making `store` wait for its vectors (issue 15). Embedded `store`
 * commits (the outbox row makes the vectors owed durably, db/060), queues its embed job and
 * answers; the job is registered here. Every read that must see the write (`search`, and every
 * tool call but `store` itself, through invoke()) first calls `settled()`, which waits (bounded by
 * the embed wait) for the jobs registered before it and pulls the index replica. So a query sent
 * after a store's answer finds it with every signal, as when `store` waited, and a loop of
 * stores no longer pays one embedding round trip each. `recent()` is the small in-memory delta
 * the near-duplicate check of the next `store` compares against, for memories not indexed yet.
 */
export class PendingVectors {
  private readonly jobs = new Set<{ handle: JobHandle; deadline: number }>();
  private readonly memories = new Map<number, PendingMemory>();

  constructor(private readonly deps: { indexSync: Pick<IndexSync, 'pull'>; waitMs: number; logger: Logger }) {}

  /** Registers a store's embed job (null: the queue refused it; the outbox owes it). */
  add(handle: JobHandle | null, memories: readonly PendingMemory[]): void {
    for (const m of memories) this.memories.set(m.nid, m);
    if (!handle) return;
    const entry = { handle, deadline: Date.now() + this.deps.waitMs };
    this.jobs.add(entry);
    const nids = memories.map((m) => m.nid);
    // Drop the delta entries once their vectors are in (or the job is given up on).
    void handle
      .finished(this.deps.waitMs)
      .catch(() => undefined)
      .then(() => this.deps.indexSync.pull())
      .catch(() => 0)
      .finally(() => {
        this.jobs.delete(entry);
        for (const nid of nids) this.memories.delete(nid);
      });
  }

  /** Memories stored by this process whose vectors may not be indexed yet. */
  recent(): PendingMemory[] {
    return [...this.memories.values()];
  }

  get pending(): number {
    return this.jobs.size;
  }

  /**
   * Resolves once every embed job registered before the call has finished (or its wait ran out:
   * then the outbox finishes it later, and the read goes on without those vectors) and the
   * index replica holds what they wrote. Never rejects.
   */
  async settled(): Promise<void> {
    if (this.jobs.size === 0) return;
    const warn = (job: string) => (err: unknown) => this.deps.logger.warn({ err, job }, 'vectors of a stored memory not ready in time; the read goes on without them');
    await Promise.all([...this.jobs].map((j) => j.handle.finished(Math.max(1, j.deadline - Date.now())).catch(warn(j.handle.id))));
    await this.deps.indexSync.pull().catch((err) => this.deps.logger.warn({ err }, 'index pull failed before a read'));
  }
}
