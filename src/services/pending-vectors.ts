import type { IndexSync } from '../index/sync.js';
import { enqueueJob } from '../jobs/define.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Logger } from '../log.js';
import { embedJob, enqueueFingerprints } from './embedding.js';
import { enqueueLinks } from './navigation/link-job.js';

/** A stored memory whose vectors are not in this process's indexes yet, with its E1 vector when known. */
export interface PendingMemory {
  nid: number;
  version: number;
  projectId: string;
  collection: string;
  /** E1 vector computed at store time (near-duplicate check), unit length; null when not computed. */
  e1: Float32Array | null;
}

/** Longest a burst of stores defers the fingerprint job. */
const FINGERPRINT_EVERY_MS = 2_000;

interface Batch {
  /** The embed job's id, known before it is enqueued so each store can answer it. */
  id: string;
  memories: PendingMemory[];
  done: Promise<void>;
  finish(): void;
}

/**
 * Read-your-writes without making `store` wait for its vectors (issue 15). Embedded `store`
 * commits (the outbox row makes the vectors owed durably, db/060), joins a batch here and
 * answers. Every read that must see the write (`search`, and every tool call but `store`
 * itself, through invoke()) first calls `settled()`, which waits (bounded by the embed wait) for
 * the batches joined before it and for the index replica to hold their vectors. So a query sent
 * after a store's answer finds it with every signal, as when `store` waited.
 *
 * Group commit: one embed job runs at a time; stores that arrive meanwhile join the next batch,
 * which is enqueued as one job when the running one ends. A burst of stores costs a few
 * set-at-a-time embed jobs instead of one each, and a store never waits for an embedding. The
 * fingerprint job (whose scan for what it lacks grows with the project) is queued when the burst
 * ends, or every FINGERPRINT_EVERY_MS during a long one, instead of after every batch. `recent()` is the small in-memory delta the near-duplicate check of the next
 * `store` compares against, for memories not indexed yet.
 */
export class PendingVectors {
  private open: Batch | null = null;
  private running: Batch | null = null;
  private readonly memories = new Map<number, PendingMemory>();
  /** Projects whose fingerprint job is owed by finished batches (queued once the burst ends). */
  private readonly owedFingerprints = new Set<string>();
  private fingerprintsQueuedAt = Date.now();

  constructor(
    private readonly deps: {
      queue: JobQueue;
      indexSync: Pick<IndexSync, 'pull'>;
      /** How long a read waits for pending vectors before going on without them. */
      waitMs: number;
      logger: Logger;
      /** Queue the automatic-edge job with each batch (config autoEdges). */
      autoEdges: boolean;
    },
  ) {}

  /** Adds a committed memory to the next embed batch; answers that batch's job id. */
  join(memory: PendingMemory): string {
    this.memories.set(memory.nid, memory);
    if (!this.open) {
      let finish!: () => void;
      const done = new Promise<void>((resolve) => (finish = resolve));
      this.open = { id: `embed-live-${memory.nid}-v${memory.version}`, memories: [], done, finish };
    }
    this.open.memories.push(memory);
    const id = this.open.id;
    if (!this.running) void this.launch();
    return id;
  }

  /** Memories stored by this process whose vectors may not be indexed yet. */
  recent(): PendingMemory[] {
    return [...this.memories.values()];
  }

  /** Batches not yet in the index (running or waiting to start). */
  get pending(): number {
    return (this.open ? 1 : 0) + (this.running ? 1 : 0);
  }

  /**
   * Resolves once every batch joined before the call is in the index replica, or after the
   * embed wait (then the outbox finishes the job later, and the read goes on without those
   * vectors). Never rejects.
   */
  async settled(): Promise<void> {
    const batches = [this.running, this.open].filter((b): b is Batch => b !== null);
    if (batches.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), this.deps.waitMs)));
    const outcome = await Promise.race([Promise.all(batches.map((b) => b.done)), late]);
    clearTimeout(timer);
    if (outcome === 'late') this.deps.logger.warn({ jobs: batches.map((b) => b.id) }, 'vectors of stored memories not ready in time; the read goes on without them');
  }

  private async launch(): Promise<void> {
    const batch = this.open!;
    this.open = null;
    this.running = batch;
    const nids = batch.memories.map((m) => m.nid);
    try {
      const handle = await enqueueJob(this.deps.queue, embedJob, { nids, defer_fingerprints: true }, { jobId: batch.id });
      for (const m of batch.memories) this.owedFingerprints.add(m.projectId);
      if (this.deps.autoEdges) await enqueueLinks(this.deps.queue, batch.memories);
      await handle.finished(this.deps.waitMs);
      await this.deps.indexSync.pull();
    } catch (err) {
      // The vectors stay owed in the outbox, which re-enqueues them; reads stop waiting for them.
      this.deps.logger.warn({ err, job: batch.id, nids: nids.length }, 'embedding of stored memories not done in time; it continues in the background');
    } finally {
      for (const nid of nids) this.memories.delete(nid);
      this.running = null;
      batch.finish();
      if (!this.open || Date.now() - this.fingerprintsQueuedAt > FINGERPRINT_EVERY_MS) await this.queueFingerprints();
      if (this.open && !this.running) void this.launch();
    }
  }

  private async queueFingerprints(): Promise<void> {
    this.fingerprintsQueuedAt = Date.now();
    const projects = [...this.owedFingerprints];
    this.owedFingerprints.clear();
    for (const projectId of projects) {
      // Lost only until the next start: the fingerprint job of any later write drains what is missing.
      await enqueueFingerprints(this.deps.queue, projectId).catch((err) => this.deps.logger.warn({ err, projectId }, 'fingerprint job not queued'));
    }
  }
}
