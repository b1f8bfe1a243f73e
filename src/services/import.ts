import type { Db } from '../store/db.js';
import type { EmbeddingScheduler } from './embedding-scheduler.js';
import { BatchWriter, type Indexed, type Written } from './import-batch.js';
import { parseRecord, type ImportCounts, type ImportOverrides, type ImportRecord, type Rejection } from './import-records.js';
import { spaceById } from '../embed/spaces/registry.js';
import type { SpaceId } from '../embed/types.js';
import type { JobHandle } from '../jobs/queue.js';
import { ImportLeases } from './import-leases.js';
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
 * its outbox rows are kept leased while it waits (ImportLeases), so however long the lead lasts no
 * debt is presumed lost and dispatched twice.
 */
const MAX_JOBS_AHEAD = 4;
const JOB_WAIT_MS = 120_000;
/**
 * How far ahead the outbox lease of nodes waiting for their second pass is dated: they wait
 * behind the whole import (renewed with a minute left, so a long import keeps them; a process
 * that dies leaves them to the next start's backlog, or to the outbox once the lease is over).
 */
const SECOND_PASS_LEASE_MS = 10 * 60_000;

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
  /**
   * With `pipelined`, when this process runs the jobs (`context-graph import` in embedded mode):
   * embed in two passes. The first embeds only the spaces default search reads (weight > 0: E1,
   * E6, E12, E13), so the import is searchable about twice as soon (`searchable()`); the other
   * spaces follow in a second pass once the import calls `embedRest()` (so does
   * `scheduleDeferredFingerprints()`, since fingerprints compare every space). Until then a
   * search that weights another space (a profile) finds the new memories through the others only.
   */
  searchFirst?: boolean;
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
  /** The outbox leases of this process's import jobs, held until each is done. */
  private readonly leases: ImportLeases;
  /** Every embed job (or first pass) of this process's pipelined imports not yet waited for by `searchable()`. */
  private passes: Array<Promise<unknown>> = [];
  /** Nodes whose first pass is done and whose other spaces wait for `embedRest()`. */
  private rest: Array<{ nodes: ReadonlyArray<{ nid: number; version: number; id: string }>; spaces: SpaceId[]; queued: (job: Promise<unknown>) => void }> = [];
  /** Memories this process's imports wrote, and that count when the tables were last analyzed. */
  private written = 0;
  private analyzedAt = 0;
  /** Projects whose fingerprints an import deferred and nobody has queued yet. */
  private readonly deferred = new Set<string>();

  constructor(
    private readonly deps: {
      db: Db;
      embedding: Pick<EmbeddingScheduler, 'schedule' | 'scheduleBulk' | 'scheduleFingerprints' | 'consumesOwnJobs' | 'activeModels'> &
        Partial<Pick<EmbeddingScheduler, 'graphChanged'>>;
    },
  ) {
    this.leases = new ImportLeases(deps.db);
  }

  /**
   * Resolves once every embed job of this process's pipelined imports so far is done: with
   * `searchFirst`, once default search finds every imported memory (its first pass); without,
   * once every space holds them. (Pull the index replica after it to search at once.)
   */
  async searchable(): Promise<void> {
    while (this.passes.length > 0) await Promise.all(this.passes.splice(0));
  }

  /**
   * Queues the second pass of every `searchFirst` import batch (the spaces default search does
   * not read) once their first passes are done; resolves when those jobs are done (when this
   * process runs them). A failed job leaves its nodes owed: the outbox embeds them again.
   */
  async embedRest(): Promise<void> {
    await this.searchable();
    const jobs: Array<Promise<unknown>> = [];
    for (const r of this.rest.splice(0)) {
      const handle = await this.deps.embedding.scheduleBulk(r.nodes, { deferFingerprints: true, pass: { spaces: r.spaces, second: true } });
      const finished = handle ? handle.finished(JOB_WAIT_MS * 10).catch(() => undefined) : Promise.resolve();
      r.queued(finished);
      jobs.push(finished);
    }
    await Promise.all(jobs);
  }

  /** The first pass's spaces and the rest, or null when one pass embeds them all (or none is active). */
  private twoPasses(): { first: SpaceId[]; rest: SpaceId[] } | null {
    const active = [...this.deps.embedding.activeModels().keys()] as SpaceId[];
    const first = active.filter((s) => spaceById(s).weight > 0);
    const rest = active.filter((s) => spaceById(s).weight <= 0);
    return first.length > 0 && rest.length > 0 ? { first, rest } : null;
  }

  /** Queues the fingerprint jobs deferred by pipelined imports; resolves when they are done (or at once when another process runs them). */
  async scheduleDeferredFingerprints(): Promise<void> {
    await this.embedRest();
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
      const passes = opts.searchFirst && this.deps.embedding.consumesOwnJobs ? this.twoPasses() : null;
      for (let i = 0; i < result.changed.length; i += EMBED_BATCH) {
        const nodes = result.changed.slice(i, i + EMBED_BATCH);
        const handle = await this.deps.embedding.scheduleBulk(nodes, { deferFingerprints: true, ...(passes ? { pass: { spaces: passes.first, second: false } } : {}) });
        if (!handle) continue;
        jobIds.push(handle.id);
        // A failed job is not this batch's failure: the outbox still owes its vectors and re-enqueues them.
        if (!this.deps.embedding.consumesOwnJobs) continue;
        this.follow(handle, nodes, passes?.rest);
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

  /**
   * Bounds how far the writes run ahead of this job, keeps its nodes leased until it is done, and
   * after a first pass, keeps them leased (dated ahead) until their second pass is done.
   */
  private follow(handle: JobHandle, nodes: ReadonlyArray<{ nid: number; version: number; id: string }>, restSpaces: SpaceId[] | undefined): void {
    const done = handle.finished(JOB_WAIT_MS);
    this.inflight.push(done.catch(() => undefined));
    void this.leases.hold(handle.id, nodes, handle.finished());
    if (!restSpaces) {
      this.passes.push(done.catch(() => undefined));
      return;
    }
    // A failed first pass queues no second: its nodes stay owed, and the outbox embeds them in full.
    const firstDone = done.then(
      () => {
        let queued!: (job: Promise<unknown>) => void;
        const secondDone = new Promise<unknown>((resolve) => (queued = (job) => resolve(job)));
        this.rest.push({ nodes, spaces: restSpaces, queued });
        return this.leases.hold(`${handle.id}-rest`, nodes, secondDone, SECOND_PASS_LEASE_MS);
      },
      () => undefined,
    );
    this.passes.push(firstDone);
  }
}

function countsOf(w: Written, rejections: ImportBatchResult['rejections']): Omit<ImportBatchResult, 'txId' | 'jobIds'> {
  return { inserted: w.inserted, updated: w.updated, skipped: w.skipped, rejected: rejections.length, rejections: rejections.sort((a, b) => a.index - b.index) };
}
