import type { Db } from '../store/db.js';
import type { EmbeddingScheduler } from './embedding-scheduler.js';
import { BatchWriter, type Indexed, type Written } from './import-batch.js';
import { parseRecord, type ImportCounts, type ImportOverrides, type ImportRecord, type Rejection } from './import-records.js';
import { renewOwedEmbeddings } from '../store/outbox-repo.js';
import { writeTransaction } from './writes.js';

export * from './import-records.js';
export { OBSERVATION_PREDICATE } from './import-batch.js';

/** Most records one batch (one transaction) takes. */
export const MAX_IMPORT_BATCH = 2_000;
/** Nodes per embed job on the pipelined path, and per keyword write + job otherwise. */
const EMBED_BATCH = 500;
const KEYWORD_BATCH = 256;
/**
 * Embed jobs an import may have queued and not yet finished before its next batch waits (when
 * this process runs them). A job in the queue holds only nids, so the lead costs little memory;
 * its outbox rows are kept leased while it waits (RENEW_MS), so however long the lead lasts no
 * debt is presumed lost and dispatched twice.
 */
const MAX_JOBS_AHEAD = 4;
const JOB_WAIT_MS = 120_000;
/**
 * The outbox lease of this process's waiting import jobs is renewed once it is RENEW_AFTER_MS
 * old, looked at every RENEW_TICK_MS: well inside the outbox's shortest lease (10 s), while a
 * job that finishes within a few seconds (most of them) costs no renewal at all.
 */
const RENEW_AFTER_MS = 4_000;
const RENEW_TICK_MS = 1_000;

export interface ImportBatchOptions extends ImportOverrides {
  dryRun?: boolean;
  actor?: string | null;
  /**
   * The pipelined bulk path (`context-graph import` in embedded mode): embed jobs are queued
   * without writing keyword vectors or pulling the index per batch (the import is searchable
   * once the jobs are done), the writes run at most MAX_JOBS_AHEAD jobs ahead of embedding, and
   * no fingerprint job is queued per embed job: the caller calls `scheduleDeferredFingerprints()`
   * once its batches are in, so UTL runs once over the whole import, off its critical path.
   * Without it (the `import_records` tool), each batch's keyword vectors are written at once so
   * lexical search finds it before the embed jobs finish.
   */
  pipelined?: boolean;
}

export interface ImportBatchResult extends ImportCounts {
  /** 0 when the batch changed nothing (or was a dry run). */
  txId: number;
  /** Records refused, by their index in the batch; the rest of the batch is written. */
  rejections: Rejection[];
  /** Embedding jobs queued for the new and changed nodes (none on a dry run). */
  jobIds: string[];
}

class DryRunRollback extends Error {
  constructor(readonly outcome: Omit<ImportBatchResult, 'txId' | 'jobIds'>) {
    super('dry run');
  }
}

/**
 * `context-graph import` (issue 18): a batch of records in one transaction (op `import`), so a
 * batch is in or out as a whole and undo reverts it. Re-running skips what is already in: a node
 * with the same id, or (without an id) a live node of the project with the same content and
 * topic; a chunk from the same source_uri and position whose text changed is rewritten in place.
 * A record that cannot be written is reported by index and the others go in.
 */
export class ImportService {
  /** Embed jobs of this process's imports still running (bounded by MAX_JOBS_AHEAD). */
  private readonly inflight: Array<Promise<unknown>> = [];
  /** Their nids by job id, whose outbox lease is renewed until the job is done, and when it was last taken. */
  private readonly pending = new Map<string, { nids: readonly number[]; leasedAt: number }>();
  private renewTimer: NodeJS.Timeout | null = null;
  private renewing: Promise<void> | null = null;
  /** Memories this process's imports wrote, and that count when the tables were last analyzed. */
  private written = 0;
  private analyzedAt = 0;
  /** Projects whose fingerprints an import deferred and nobody has queued yet. */
  private readonly deferred = new Set<string>();

  constructor(
    private readonly deps: {
      db: Db;
      embedding: Pick<EmbeddingScheduler, 'schedule' | 'scheduleBulk' | 'scheduleFingerprints' | 'consumesOwnJobs'> & Partial<Pick<EmbeddingScheduler, 'graphChanged'>>;
    },
  ) {}

  /** Queues the fingerprint jobs deferred by pipelined imports; resolves when they are done (or at once when another process runs them). */
  async scheduleDeferredFingerprints(): Promise<void> {
    const projects = [...this.deferred];
    this.deferred.clear();
    // The fingerprint job walks the whole import: plans from sizes before it scan a project per batch.
    if (projects.length > 0) await this.analyze();
    const handles = await this.deps.embedding.scheduleFingerprints(projects);
    if (this.deps.embedding.consumesOwnJobs) await Promise.all(handles.map((h) => h.finished(JOB_WAIT_MS * 10).catch(() => undefined)));
  }

  async importBatch(raw: readonly unknown[], opts: ImportBatchOptions = {}): Promise<ImportBatchResult> {
    const rejections: ImportBatchResult['rejections'] = [];
    const valid: Array<Indexed<ImportRecord>> = [];
    raw.forEach((r, index) => {
      const parsed = parseRecord(r, opts);
      if ('reason' in parsed) rejections.push({ index, reason: parsed.reason });
      else valid.push({ index, record: parsed.record });
    });
    try {
      const { txId, result, changes } = await writeTransaction(this.deps.db, 'import', { actor: opts.actor ?? null }, async (tx, log) => {
        const outcome = await new BatchWriter(tx, log, rejections).write(valid);
        if (opts.dryRun) throw new DryRunRollback(countsOf(outcome, rejections));
        return outcome;
      });
      // Imported edges between nodes this batch does not (re-)embed move those nodes' E8 vectors;
      // the embed job of the batch's own nodes recomputes their graph neighbourhood itself.
      await this.deps.embedding.graphChanged?.(changes, new Set(result.changed.map((n) => n.id)));
      const jobIds: string[] = [];
      if (!opts.pipelined) {
        for (let i = 0; i < result.changed.length; i += KEYWORD_BATCH) {
          const r = await this.deps.embedding.schedule(result.changed.slice(i, i + KEYWORD_BATCH), { wait: false });
          if (r.jobId) jobIds.push(r.jobId);
        }
        return { txId, jobIds, ...countsOf(result, rejections) };
      }
      for (const n of result.changed) this.deferred.add(n.project_id);
      // PGlite runs no autovacuum. The app analyzes a table once it doubled (store/pglite-maintenance.ts),
      // but at most once a second and after the transaction's announcement, not before the embed jobs
      // queued below, whose plans (and the fingerprint job's) would assume the sizes before the batch.
      // Analyzed here, first, each time the import doubled (a handful of times).
      this.written += result.changed.length;
      if (this.written >= 2 * Math.max(this.analyzedAt, 1_000)) await this.analyze();
      for (let i = 0; i < result.changed.length; i += EMBED_BATCH) {
        const handle = await this.deps.embedding.scheduleBulk(result.changed.slice(i, i + EMBED_BATCH), { deferFingerprints: true });
        if (!handle) continue;
        jobIds.push(handle.id);
        // A failed job is not this batch's failure: the outbox still owes its vectors and re-enqueues them.
        if (!this.deps.embedding.consumesOwnJobs) continue;
        this.inflight.push(handle.finished(JOB_WAIT_MS).catch(() => undefined));
        this.track(handle.id, result.changed.slice(i, i + EMBED_BATCH), handle.finished());
      }
      while (this.inflight.length > MAX_JOBS_AHEAD) await this.inflight.shift();
      return { txId, jobIds, ...countsOf(result, rejections) };
    } catch (err) {
      if (err instanceof DryRunRollback) return { txId: 0, jobIds: [], ...err.outcome };
      throw err;
    }
  }

  private async analyze(): Promise<void> {
    this.analyzedAt = this.written;
    await this.deps.db.query('analyze nodes, embeddings, embedding_outbox, fingerprints, tx_changes').catch(() => undefined);
  }

  /** Keeps the job's outbox rows leased until it is done, however long it waits (failed: the outbox takes them after the lease). */
  private track(jobId: string, nodes: ReadonlyArray<{ nid: number }>, finished: Promise<unknown>): void {
    this.pending.set(jobId, { nids: nodes.map((n) => n.nid), leasedAt: Date.now() });
    this.renewTimer ??= setInterval(() => {
      if (this.renewing) return;
      const now = Date.now();
      const due = [...this.pending.values()].filter((p) => now - p.leasedAt >= RENEW_AFTER_MS);
      if (due.length === 0) return;
      for (const p of due) p.leasedAt = now;
      this.renewing = renewOwedEmbeddings(
        this.deps.db,
        due.flatMap((p) => p.nids),
      )
        .catch(() => undefined)
        .finally(() => (this.renewing = null));
    }, RENEW_TICK_MS).unref();
    void finished
      .catch(() => undefined)
      .finally(() => {
        this.pending.delete(jobId);
        if (this.pending.size > 0 || !this.renewTimer) return;
        clearInterval(this.renewTimer);
        this.renewTimer = null;
      });
  }
}

function countsOf(w: Written, rejections: ImportBatchResult['rejections']): Omit<ImportBatchResult, 'txId' | 'jobIds'> {
  return { inserted: w.inserted, updated: w.updated, skipped: w.skipped, rejected: rejections.length, rejections: rejections.sort((a, b) => a.index - b.index) };
}
