import type { JobProgress } from './queue.js';

/**
 * What a queue remembers of one job, readable after it ends (knowledge://jobs, GET /api/jobs).
 * Raw: the result is what the handler returned and `error` the message it failed with; the
 * services layer validates the result with the job's own schema and adds the registry code.
 */
export type RecordState = 'waiting' | 'active' | 'completed' | 'failed' | 'cancelled';
export const RECORD_STATES: readonly RecordState[] = ['waiting', 'active', 'completed', 'failed', 'cancelled'];

export interface JobRecord {
  id: string;
  type: string;
  state: RecordState;
  /** Creation order within the queue (newest = highest): the key records are listed and paged by. */
  order: number;
  /** The latest progress report, null before the first. */
  progress: JobProgress | null;
  /** Epoch ms. */
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  result?: unknown;
  error?: string;
}

export interface RecordQuery {
  states?: readonly RecordState[] | undefined;
  type?: string | undefined;
  /** Only records with `order` below this (the previous page's last), newest first. */
  before?: number | null | undefined;
  limit: number;
}

/** Finished records the in-process queue keeps, oldest forgotten first (the live ones always). */
export const IN_PROCESS_RECORDS_KEPT = 1_000;

/**
 * The in-process queue's records: every live job, and the latest IN_PROCESS_RECORDS_KEPT
 * finished ones. Map order is insertion order = creation order.
 */
export class InProcessRecords {
  private readonly records = new Map<string, JobRecord>();
  private finished = 0;
  private seq = 0;

  constructor(private readonly kept = IN_PROCESS_RECORDS_KEPT) {}

  created(id: string, type: string): void {
    const old = this.records.get(id);
    if (old && old.finishedAt !== null) this.finished--;
    this.records.delete(id);
    this.records.set(id, { id, type, state: 'waiting', order: ++this.seq, progress: null, createdAt: Date.now(), startedAt: null, finishedAt: null });
  }

  started(id: string): void {
    const r = this.records.get(id);
    if (!r) return;
    r.state = 'active';
    r.startedAt ??= Date.now();
  }

  /** A retry waits again; its start time stays the first. */
  waiting(id: string): void {
    const r = this.records.get(id);
    if (r) r.state = 'waiting';
  }

  progress(id: string, progress: JobProgress): void {
    const r = this.records.get(id);
    if (r) r.progress = progress;
  }

  ended(id: string, outcome: { state: 'completed'; result: unknown } | { state: 'failed' | 'cancelled'; error: string }): void {
    const r = this.records.get(id);
    if (!r || r.finishedAt !== null) return;
    r.state = outcome.state;
    r.finishedAt = Date.now();
    if (outcome.state === 'completed') r.result = outcome.result;
    else r.error = outcome.error;
    this.finished++;
    if (this.finished <= this.kept) return;
    for (const [key, old] of this.records) {
      if (old.finishedAt === null) continue;
      this.records.delete(key);
      this.finished--;
      break;
    }
  }

  get(id: string): JobRecord | null {
    const r = this.records.get(id);
    return r ? structuredClone(r) : null;
  }

  list(q: RecordQuery): JobRecord[] {
    const out: JobRecord[] = [];
    const all = [...this.records.values()];
    for (let i = all.length - 1; i >= 0 && out.length < q.limit; i--) {
      const r = all[i]!;
      if (q.before != null && r.order >= q.before) continue;
      if (q.type && r.type !== q.type) continue;
      if (q.states && !q.states.includes(r.state)) continue;
      out.push(structuredClone(r));
    }
    return out;
  }
}
