import type { Db } from '../store/db.js';
import type { EmbeddingScheduler } from './embedding-scheduler.js';
import { BatchWriter, type Indexed, type Written } from './import-batch.js';
import { parseRecord, type ImportCounts, type ImportOverrides, type ImportRecord, type Rejection } from './import-records.js';
import { writeTransaction } from './writes.js';

export * from './import-records.js';
export { OBSERVATION_PREDICATE } from './import-batch.js';

/** Most records one batch (one transaction) takes. */
export const MAX_IMPORT_BATCH = 2_000;
const EMBED_BATCH = 256;

export interface ImportBatchOptions extends ImportOverrides {
  dryRun?: boolean;
  actor?: string | null;
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
  constructor(private readonly deps: { db: Db; embedding: Pick<EmbeddingScheduler, 'schedule'> }) {}

  async importBatch(raw: readonly unknown[], opts: ImportBatchOptions = {}): Promise<ImportBatchResult> {
    const rejections: ImportBatchResult['rejections'] = [];
    const valid: Array<Indexed<ImportRecord>> = [];
    raw.forEach((r, index) => {
      const parsed = parseRecord(r, opts);
      if ('reason' in parsed) rejections.push({ index, reason: parsed.reason });
      else valid.push({ index, record: parsed.record });
    });
    try {
      const { txId, result } = await writeTransaction(this.deps.db, 'import', { actor: opts.actor ?? null }, async (tx, log) => {
        const outcome = await new BatchWriter(tx, log, rejections).write(valid);
        if (opts.dryRun) throw new DryRunRollback(countsOf(outcome, rejections));
        return outcome;
      });
      const jobIds: string[] = [];
      for (let i = 0; i < result.changed.length; i += EMBED_BATCH) {
        const r = await this.deps.embedding.schedule(result.changed.slice(i, i + EMBED_BATCH), { wait: false });
        if (r.jobId) jobIds.push(r.jobId);
      }
      return { txId, jobIds, ...countsOf(result, rejections) };
    } catch (err) {
      if (err instanceof DryRunRollback) return { txId: 0, jobIds: [], ...err.outcome };
      throw err;
    }
  }
}

function countsOf(w: Written, rejections: ImportBatchResult['rejections']): Omit<ImportBatchResult, 'txId' | 'jobIds'> {
  return { inserted: w.inserted, updated: w.updated, skipped: w.skipped, rejected: rejections.length, rejections: rejections.sort((a, b) => a.index - b.index) };
}
