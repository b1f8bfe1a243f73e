import type { Queryable } from './db.js';
import { EDGE_COLUMNS, type EdgeRecord } from './edges-repo.js';
import { asReal } from './real.js';

/**
 * SQL behind dreams (issue 12): the `dreams` run table (db/110) and the edge reads and writes the
 * phases make. The edge writes run inside a phase's logged transaction (services/dreams).
 */

export type DreamStatus = 'queued' | 'running' | 'completed' | 'aborted' | 'failed';

export interface DreamPhaseRecord {
  phase: string;
  tx_id: number | null;
  counts: Record<string, number>;
  ms: number;
  stopped_by_budget: boolean;
}

export interface DreamRow {
  id: string;
  project_id: string;
  phase: string;
  status: DreamStatus;
  actor: string | null;
  budget: Record<string, unknown>;
  phases: DreamPhaseRecord[];
  error: string | null;
  abort_requested_at: Date | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

const DREAM_COLUMNS = `id, project_id, phase, status, actor, budget, phases, error, abort_requested_at, created_at, started_at, finished_at`;

export async function insertDream(q: Queryable, d: { id: string; projectId: string; phase: string; actor: string | null; budget: Record<string, unknown> }): Promise<void> {
  await q.query(`insert into dreams (id, project_id, phase, actor, budget) values ($1, $2, $3, $4, $5::jsonb) on conflict (id) do nothing`, [
    d.id,
    d.projectId,
    d.phase,
    d.actor,
    JSON.stringify(d.budget),
  ]);
}

/** Marks a run as started (again, on a retry); false when it was aborted before it started. */
export async function startDream(q: Queryable, id: string): Promise<boolean> {
  const rows = await q.query<{ id: string }>(
    `update dreams set status = 'running', started_at = coalesce(started_at, now()) where id = $1 and abort_requested_at is null returning id`,
    [id],
  );
  return rows.length > 0;
}

export async function appendDreamPhase(q: Queryable, id: string, phase: DreamPhaseRecord): Promise<void> {
  await q.query(`update dreams set phases = phases || $2::jsonb where id = $1`, [id, JSON.stringify([phase])]);
}

export async function finishDream(q: Queryable, id: string, status: Exclude<DreamStatus, 'queued' | 'running'>, error: string | null = null): Promise<void> {
  await q.query(`update dreams set status = $2, error = $3, finished_at = now() where id = $1 and status in ('queued', 'running')`, [id, status, error]);
}

/** Sets the abort flag of an open run; the row as it is now, or null when there is no such run. */
export async function requestDreamAbort(q: Queryable, id: string): Promise<DreamRow | null> {
  await q.query(`update dreams set abort_requested_at = coalesce(abort_requested_at, now()) where id = $1 and status in ('queued', 'running')`, [id]);
  return dreamById(q, id);
}

export async function dreamAbortRequested(q: Queryable, id: string): Promise<boolean> {
  const [row] = await q.query<{ requested: boolean }>(`select abort_requested_at is not null as requested from dreams where id = $1`, [id]);
  return row?.requested ?? false;
}

export async function dreamById(q: Queryable, id: string): Promise<DreamRow | null> {
  const [row] = await q.query<DreamRow & Record<string, unknown>>(`select ${DREAM_COLUMNS} from dreams where id = $1`, [id]);
  return row ?? null;
}

/** The newest runs (of a project, or all), newest first; open ones (queued, running) first of all. */
export async function recentDreams(q: Queryable, opts: { projectId: string | null; limit: number }): Promise<DreamRow[]> {
  return q.query<DreamRow & Record<string, unknown>>(
    `select ${DREAM_COLUMNS} from dreams where ($1::text is null or project_id = $1)
      order by (status in ('queued', 'running')) desc, created_at desc, id desc limit $2`,
    [opts.projectId, opts.limit],
  );
}

/** The open run of a project, if any (the newest). */
export async function openDreamOf(q: Queryable, projectId: string): Promise<DreamRow | null> {
  const [row] = await q.query<DreamRow & Record<string, unknown>>(
    `select ${DREAM_COLUMNS} from dreams where project_id = $1 and status in ('queued', 'running') order by created_at desc limit 1`,
    [projectId],
  );
  return row ?? null;
}

/** Live edges whose both ends are in `nodeIds` (both ends live), any type. */
export async function liveEdgesAmong(q: Queryable, nodeIds: readonly string[]): Promise<EdgeRecord[]> {
  if (nodeIds.length < 2) return [];
  return q.query<EdgeRecord & Record<string, unknown>>(
    `select ${EDGE_COLUMNS} from edges e
      where e.deleted_at is null and e.src = any($1::text[]) and e.dst = any($1::text[]) and e.src <> e.dst
        and exists (select 1 from nodes n where n.id = e.src and n.deleted_at is null)
        and exists (select 1 from nodes n where n.id = e.dst and n.deleted_at is null)
      order by e.id`,
    [nodeIds],
  );
}

/** Live edges by id, locked for the rest of the transaction (a phase re-reads what it planned on). */
export async function lockLiveEdges(q: Queryable, ids: readonly string[]): Promise<EdgeRecord[]> {
  if (ids.length === 0) return [];
  return q.query<EdgeRecord & Record<string, unknown>>(`select ${EDGE_COLUMNS} from edges where id = any($1::text[]) and deleted_at is null order by id for update`, [ids]);
}

export async function setEdgeWeight(q: Queryable, id: string, weight: number, metadata: Record<string, unknown>): Promise<EdgeRecord> {
  const [row] = await q.query<EdgeRecord & Record<string, unknown>>(`update edges set weight = $2, metadata = $3::jsonb where id = $1 returning ${EDGE_COLUMNS}`, [
    id,
    asReal(weight, 'edges.weight'),
    JSON.stringify(metadata),
  ]);
  return row!;
}

/**
 * Automatic edges of a project (metadata.method set: made by a job or a dream, not by a person)
 * not used since `unusedBefore` (created, strengthened or decayed before it), heavier than
 * `floor`, oldest use first.
 */
export async function unusedAutomaticEdges(q: Queryable, opts: { projectId: string; unusedBefore: Date; floor: number; limit: number }): Promise<EdgeRecord[]> {
  return q.query<EdgeRecord & Record<string, unknown>>(
    `select ${EDGE_COLUMNS.split(',')
      .map((c) => `e.${c.trim()}`)
      .join(', ')} from edges e
       join nodes s on s.id = e.src and s.deleted_at is null and s.project_id = $1
       join nodes d on d.id = e.dst and d.deleted_at is null
      where e.deleted_at is null and e.metadata ? 'method' and e.weight > $3
        and greatest(e.created_at, coalesce((e.metadata->>'last_used_at')::timestamptz, e.created_at)) < $2::timestamptz
      order by greatest(e.created_at, coalesce((e.metadata->>'last_used_at')::timestamptz, e.created_at)), e.id
      limit $4`,
    [opts.projectId, opts.unusedBefore.toISOString(), opts.floor, opts.limit],
  );
}

/** Live Shortcut edges of a project (or all), strongest first. */
export async function liveShortcuts(q: Queryable, opts: { projectId: string | null; minConfidence: number; limit: number }): Promise<EdgeRecord[]> {
  return q.query<EdgeRecord & Record<string, unknown>>(
    `select ${EDGE_COLUMNS.split(',')
      .map((c) => `e.${c.trim()}`)
      .join(', ')} from edges e
       join nodes s on s.id = e.src and s.deleted_at is null
       join nodes d on d.id = e.dst and d.deleted_at is null
      where e.deleted_at is null and e.edge_type = 'Shortcut' and e.confidence >= $2
        and ($1::text is null or s.project_id = $1)
      order by e.confidence desc, e.created_at desc, e.id limit $3`,
    [opts.projectId, opts.minConfidence, opts.limit],
  );
}

/** Which of `nodeIds` a live summary node already summarizes, with the summary's id. */
export async function summarizedBy(q: Queryable, nodeIds: readonly string[]): Promise<Array<{ node_id: string; summary_id: string }>> {
  if (nodeIds.length === 0) return [];
  return q.query<{ node_id: string; summary_id: string }>(
    `select e.dst as node_id, e.src as summary_id from edges e join nodes s on s.id = e.src and s.deleted_at is null and s.kind = 'summary'
      where e.deleted_at is null and e.predicate = 'summarizes' and e.dst = any($1::text[])`,
    [nodeIds],
  );
}

export interface PruningRow {
  nid: number;
  id: string;
  content: string;
  importance: number;
  access_count: number;
  created_at: Date;
  last_accessed_at: Date | null;
  /** Days since the memory was last read, or written when never read. */
  idle_days: number;
  /** Share of the project's memories idle for less time (0 newest … 1 longest idle). */
  idle_rank: number;
  /** Live summaries that summarize it. */
  summaries: number;
}

/**
 * A project's live memories (not entities or summaries) with what pruning weighs, the most
 * likely candidates first by importance, access and idle time; redundancy is the caller's.
 */
export async function pruningRows(q: Queryable, opts: { projectId: string; now: Date; limit: number }): Promise<PruningRow[]> {
  const rows = await q.query<PruningRow & Record<string, unknown>>(
    `with m as (
       select n.nid, n.id, n.content, n.importance, coalesce(t.access_count, 0) as access_count, n.created_at, t.last_accessed_at,
              greatest(0, extract(epoch from ($2::timestamptz - coalesce(t.last_accessed_at, n.created_at))) / 86400.0) as idle_days
         from nodes n left join node_access_totals t on t.node_id = n.id where n.project_id = $1 and n.deleted_at is null and n.kind not in ('entity', 'summary')
     ), ranked as (
       select m.*, case when count(*) over () > 1 then percent_rank() over (order by idle_days, nid desc) else 1 end as idle_rank from m
     )
     select r.*, (select count(*)::int from edges e join nodes s on s.id = e.src and s.deleted_at is null and s.kind = 'summary'
                   where e.dst = r.id and e.deleted_at is null and e.predicate = 'summarizes') as summaries
       from ranked r
      order by (1 - r.importance) * (1.0 / (1 + r.access_count)) * r.idle_rank desc, r.nid
      limit $3`,
    [opts.projectId, opts.now.toISOString(), opts.limit],
  );
  return rows.map((r) => ({ ...r, nid: Number(r.nid), importance: Number(r.importance), idle_days: Number(r.idle_days), idle_rank: Number(r.idle_rank) }));
}
