import { z } from 'zod';
import type { AnyJobDefinition } from '../jobs/define.js';
import type { JobProgress, JobQueue } from '../jobs/queue.js';
import { RECORD_STATES, type JobRecord, type RecordState } from '../jobs/records.js';
import { JOBS } from './jobs.js';

/**
 * Jobs as a client reads them after the fact (knowledge://jobs, GET /api/jobs): the queue's
 * records (src/jobs/records.ts: in memory in-process, BullMQ's job storage otherwise) with the
 * result validated by the job's own result schema, and a failure reduced to a registry code and
 * a one-line message (never a stack).
 */
export const jobStateSchema = z.enum(RECORD_STATES as [RecordState, ...RecordState[]]);

export const jobProgressViewSchema = z.object({
  phase: z.string().nullable().describe('The phase the job is in (or reported last), when it names one.'),
  done: z.number().nullable(),
  total: z.number().nullable(),
  message: z.string().nullable(),
  partial: z.unknown().describe("The job's own latest report: its partial result (for a dream: the step and the counts so far)."),
});

export const jobRecordSchema = z.object({
  id: z.string(),
  name: z.string().describe('The job type, e.g. dreams.dream.'),
  state: jobStateSchema,
  progress: jobProgressViewSchema.nullable().describe('The latest progress report; null before the first.'),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  result: z.unknown().optional().describe("A finished job's result, as its result schema reads it (a cancelled dream's says what had committed)."),
  error: z
    .object({ code: z.enum(['JOB_FAILED', 'JOB_CANCELLED']), message: z.string() })
    .optional()
    .describe('Why a job failed or stopped: the registry code and a one-line message.'),
});
export type JobRecordView = z.output<typeof jobRecordSchema>;

/** The longest error message a record carries; the server log has the rest. */
const MAX_MESSAGE = 500;

function oneLine(message: string): string {
  const first = message.split('\n')[0]!.trim();
  return first.length > MAX_MESSAGE ? `${first.slice(0, MAX_MESSAGE - 1)}…` : first;
}

function progressView(p: JobProgress | null): JobRecordView['progress'] {
  if (p === null) return null;
  if (typeof p === 'number') return { phase: null, done: p, total: null, message: null, partial: null };
  const num = (v: unknown) => (typeof v === 'number' ? v : null);
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  return { phase: str(p.phase), done: num(p.done) ?? num(p.count), total: num(p.total), message: str(p.message), partial: p };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export class JobRecordsService {
  private readonly byType: ReadonlyMap<string, AnyJobDefinition>;

  constructor(
    private readonly deps: {
      queue: JobQueue;
      jobs?: ReadonlyArray<AnyJobDefinition>;
      /** A job this process named and has not queued yet (a store burst's embed job): its name and when it was created. */
      unqueued?: (id: string) => { name: string; createdAt: Date } | null;
    },
  ) {
    this.byType = new Map((deps.jobs ?? JOBS).map((j) => [j.type, j]));
  }

  /** The job names a `name` filter may take. */
  names(): string[] {
    return [...this.byType.keys()];
  }

  async get(id: string): Promise<JobRecordView | null> {
    const record = (await this.deps.queue.record?.(id)) ?? null;
    if (record) return this.view(record);
    // Named to its callers before it is queued: it waits, as a queued job that has not started would.
    const named = this.deps.unqueued?.(id) ?? null;
    return named ? { id, name: named.name, state: 'waiting', progress: null, created_at: named.createdAt.toISOString(), started_at: null, finished_at: null } : null;
  }

  /**
   * Newest first, after `afterKey` (the previous page's last key), at most `limit`. A job whose
   * result says it was cancelled is recorded by the queue as completed, so the state filter
   * applies to what this view says, fetching on until the page is full.
   */
  async list(q: { state?: RecordState | null; name?: string | null; afterKey: number | null; limit: number }): Promise<Array<{ key: number; job: JobRecordView }>> {
    if (!this.deps.queue.records) return [];
    const states: RecordState[] | undefined = q.state === 'cancelled' ? ['completed', 'failed', 'cancelled'] : q.state ? [q.state] : undefined;
    const batch = Math.max(q.limit, 20);
    const out: Array<{ key: number; job: JobRecordView }> = [];
    let before = q.afterKey;
    for (;;) {
      const records = await this.deps.queue.records({ states, type: q.name ?? undefined, before, limit: batch });
      for (const r of records) {
        const job = this.view(r);
        if (q.state && job.state !== q.state) continue;
        out.push({ key: r.order, job });
        if (out.length >= q.limit) return out;
      }
      if (records.length < batch) return out;
      before = records[records.length - 1]!.order;
    }
  }

  private view(r: JobRecord): JobRecordView {
    const base = {
      id: r.id,
      name: r.type,
      progress: progressView(r.progress),
      created_at: iso(r.createdAt)!,
      started_at: iso(r.startedAt),
      finished_at: iso(r.finishedAt),
    };
    if (r.state === 'failed' || r.state === 'cancelled') {
      const code = r.state === 'failed' ? ('JOB_FAILED' as const) : ('JOB_CANCELLED' as const);
      return { ...base, state: r.state, error: { code, message: oneLine(r.error ?? `job ${r.id} ${r.state}`) } };
    }
    if (r.state !== 'completed') return { ...base, state: r.state };
    const def = this.byType.get(r.type);
    if (!def) return { ...base, state: 'completed', result: r.result ?? null };
    const parsed = def.result.safeParse(r.result);
    if (!parsed.success) {
      return { ...base, state: 'completed', error: { code: 'JOB_FAILED', message: `job ${r.id} returned a result this server version cannot read` } };
    }
    if (def.cancelledBy?.(parsed.data)) {
      return {
        ...base,
        state: 'cancelled',
        result: parsed.data,
        error: { code: 'JOB_CANCELLED', message: `job ${r.id} (${r.type}) stopped on request; its result says what had finished` },
      };
    }
    return { ...base, state: 'completed', result: parsed.data };
  }
}
