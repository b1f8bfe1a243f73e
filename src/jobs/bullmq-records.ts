import type { Job, JobType, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { JobProgress } from './queue.js';
import type { JobRecord, RecordQuery, RecordState } from './records.js';

/**
 * Job records on BullMQ come from BullMQ's own job storage (the job hash: name, timestamp,
 * processedOn, finishedOn, progress, returnvalue, failedReason), kept as the queue's
 * removeOnComplete/removeOnFail say. BullMQ has no "cancelled": a cancel writes a marker in one
 * hash per queue (`<prefix>:<queue>:cg-cancelled`, job id → snapshot), which turns the job's
 * `failed` into `cancelled`, and stands in for a waiting job that the cancel removed. The hash
 * keeps the newest CANCELLED_KEPT markers.
 */
export const CANCELLED_KEPT = 1_000;

interface Marker {
  type: string;
  createdAt: number;
  startedAt: number | null;
  progress: JobProgress | null;
  reason: string;
  at: number;
}

/** BullMQ's own lists for each record state. */
const LISTS: Record<RecordState, JobType[]> = {
  waiting: ['wait', 'delayed', 'prioritized', 'waiting-children'],
  active: ['active'],
  completed: ['completed'],
  failed: ['failed'],
  cancelled: ['failed'],
};

export function bullmqRecords(queue: Queue, producer: Redis, run: <T>(fn: () => Promise<T>) => Promise<T>) {
  const markersKey = `${queue.qualifiedName}:cg-cancelled`;

  async function markers(): Promise<Map<string, Marker>> {
    const all = await run(() => producer.hgetall(markersKey));
    return new Map(Object.entries(all).map(([id, json]) => [id, JSON.parse(json) as Marker]));
  }

  function progressOf(job: Job): JobProgress | null {
    const p = job.progress as JobProgress | undefined;
    // BullMQ starts every job at progress 0: no report yet.
    return p === undefined || p === 0 ? null : p;
  }

  function fromJob(job: Job, list: JobType | 'unknown', marker: Marker | undefined): JobRecord {
    const state: RecordState = list === 'active' ? 'active' : list === 'completed' ? 'completed' : list === 'failed' ? (marker ? 'cancelled' : 'failed') : 'waiting';
    const record: JobRecord = {
      id: job.id!,
      type: job.name,
      state,
      order: Number(job.id),
      progress: progressOf(job),
      createdAt: job.timestamp,
      startedAt: job.processedOn ?? null,
      finishedAt: state === 'completed' || state === 'failed' || state === 'cancelled' ? (job.finishedOn ?? null) : null,
    };
    if (state === 'completed') record.result = job.returnvalue ?? null;
    if (state === 'failed') record.error = job.failedReason;
    if (state === 'cancelled') record.error = marker!.reason;
    return record;
  }

  function fromMarker(id: string, m: Marker): JobRecord {
    return { id, type: m.type, state: 'cancelled', order: Number(id), progress: m.progress, createdAt: m.createdAt, startedAt: m.startedAt, finishedAt: m.at, error: m.reason };
  }

  return {
    /** Records a cancel; `job` is read before a waiting job is removed, so its record survives. */
    async markCancelled(jobId: string, reason: string, job?: Job): Promise<void> {
      const found = job ?? (await run(() => queue.getJob(jobId)));
      const marker: Marker = {
        type: found?.name ?? 'unknown',
        createdAt: found?.timestamp ?? Date.now(),
        startedAt: found?.processedOn ?? null,
        progress: found ? progressOf(found) : null,
        reason,
        at: Date.now(),
      };
      await run(() => producer.hset(markersKey, jobId, JSON.stringify(marker)));
      const ids = await run(() => producer.hkeys(markersKey));
      if (ids.length <= CANCELLED_KEPT) return;
      const oldest = ids.sort((a, b) => Number(a) - Number(b)).slice(0, ids.length - CANCELLED_KEPT);
      await run(() => producer.hdel(markersKey, ...oldest));
    },

    async record(jobId: string): Promise<JobRecord | null> {
      const [job, marker] = await Promise.all([run(() => queue.getJob(jobId)), run(() => producer.hget(markersKey, jobId))]);
      const m = marker ? (JSON.parse(marker) as Marker) : undefined;
      if (!job) return m ? fromMarker(jobId, m) : null;
      const state = await run(() => queue.getJobState(jobId));
      return fromJob(job, state === 'unknown' ? 'wait' : state, m);
    },

    async records(q: RecordQuery): Promise<JobRecord[]> {
      const states = q.states ?? (Object.keys(LISTS) as RecordState[]);
      const lists = [...new Set(states.flatMap((s) => LISTS[s]))];
      const listOf = new Map<string, JobType>();
      for (const list of lists) for (const id of await run(() => queue.getRanges([list], 0, -1, false))) listOf.set(id, list);
      const marks = await markers();
      const ids = new Set(listOf.keys());
      // Waiting jobs a cancel removed live on in their marker only.
      if (states.includes('cancelled')) for (const id of marks.keys()) ids.add(id);
      const ordered = [...ids].filter((id) => q.before == null || Number(id) < q.before).sort((a, b) => Number(b) - Number(a));
      const out: JobRecord[] = [];
      for (const id of ordered) {
        if (out.length >= q.limit) break;
        const list = listOf.get(id);
        const job = list ? await run(() => queue.getJob(id)) : undefined;
        const record = job && list ? fromJob(job, list, marks.get(id)) : marks.has(id) ? fromMarker(id, marks.get(id)!) : null;
        if (!record || !states.includes(record.state) || (q.type && record.type !== q.type)) continue;
        out.push(record);
      }
      return out;
    },
  };
}
