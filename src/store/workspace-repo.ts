import type { Queryable } from './db.js';
import { fromBytes } from './vector-bytes.js';
import { NODE_COLUMNS, type NodeRecord } from './nodes-repo.js';
import { asReal, realArray } from './real.js';

/**
 * SQL of the workspace, ego, autonomous services and meta-UTL (issue 12; tables in
 * db/130_workspace_autonomy.sql). Memories here are live nodes of kind `memory`: entities,
 * project-model nodes and the store's own `goal` nodes do not compete for attention.
 */

/** What a memory's activation is computed from. */
export interface MemorySignals {
  nid: number;
  id: string;
  topic: string | null;
  tags: string[];
  content: string;
  importance: number;
  access_count: number;
  last_accessed_at: Date | null;
  created_at: Date;
  /** UTL L of its fingerprint; null before the fingerprint job ran. */
  learning: number | null;
}

/** A project's live memories with their signals, newest first, at most `limit`. */
export async function memorySignals(q: Queryable, projectId: string, limit: number): Promise<MemorySignals[]> {
  const rows = await q.query<MemorySignals & Record<string, unknown>>(
    `select n.nid, n.id, n.topic, n.tags, n.content, n.importance, coalesce(t.access_count, 0) as access_count, t.last_accessed_at, n.created_at, f.learning
       from nodes n left join fingerprints f on f.node_nid = n.nid left join node_access_totals t on t.node_id = n.id
      where n.project_id = $1 and n.deleted_at is null and n.kind = 'memory'
      order by n.nid desc limit $2`,
    [projectId, limit],
  );
  return rows.map((r) => ({
    ...r,
    nid: Number(r.nid),
    importance: Number(r.importance),
    access_count: Number(r.access_count),
    learning: r.learning === null || r.learning === undefined ? null : Number(r.learning),
  }));
}

/** E1 vectors of the given nodes under `modelId` (a vector of another model is not comparable). */
export async function e1Vectors(q: Queryable, nids: readonly number[], modelId: string): Promise<Map<number, Float32Array>> {
  if (nids.length === 0) return new Map();
  const rows = await q.query<{ node_nid: number; dim: number; vector: Uint8Array }>(
    `select node_nid, dim, vector from embeddings where node_nid = any($1::bigint[]) and space = 'E1' and model_id = $2 and vector is not null`,
    [nids, modelId],
  );
  return new Map(rows.map((r) => [Number(r.node_nid), fromBytes(r.vector, r.dim)]));
}

/** Live edges whose both ends are among `ids` (each pair counted once whatever its direction). */
export async function edgesAmong(q: Queryable, ids: readonly string[]): Promise<number> {
  if (ids.length < 2) return 0;
  const [row] = await q.query<{ n: number }>(
    `select count(distinct (least(src, dst), greatest(src, dst)))::int as n from edges
      where deleted_at is null and src = any($1::text[]) and dst = any($1::text[]) and src <> dst`,
    [ids],
  );
  return Number(row?.n ?? 0);
}

/** Live nodes carrying a workspace broadcast (the winner's metadata), any project or one. */
export async function broadcastNodes(q: Queryable, projectId: string | null): Promise<Array<NodeRecord & { access_count: number }>> {
  return q.query<NodeRecord & { access_count: number } & Record<string, unknown>>(
    `select ${NODE_COLUMNS}, coalesce(t.access_count, 0) as access_count from nodes left join node_access_totals t on t.node_id = nodes.id
      where deleted_at is null and metadata ? 'workspace_broadcast' and ($1::text is null or project_id = $1)`,
    [projectId],
  );
}

export interface EgoSnapshot {
  id: number;
  last_tx_id: number;
  memories: number;
  model_id: string;
  purpose: number[];
  taken_at: Date;
}

/** A project's snapshots, newest first. */
export async function egoSnapshots(q: Queryable, projectId: string, limit: number): Promise<EgoSnapshot[]> {
  const rows = await q.query<EgoSnapshot & Record<string, unknown>>(
    `select id, last_tx_id, memories, model_id, purpose, taken_at from ego_snapshots where project_id = $1 order by id desc limit $2`,
    [projectId, limit],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id), last_tx_id: Number(r.last_tx_id), purpose: r.purpose.map(Number) }));
}

/** The first snapshot of a project (identity continuity since the beginning). */
export async function firstEgoSnapshot(q: Queryable, projectId: string): Promise<EgoSnapshot | null> {
  const [r] = await q.query<EgoSnapshot & Record<string, unknown>>(
    `select id, last_tx_id, memories, model_id, purpose, taken_at from ego_snapshots where project_id = $1 order by id limit 1`,
    [projectId],
  );
  return r ? { ...r, id: Number(r.id), last_tx_id: Number(r.last_tx_id), purpose: r.purpose.map(Number) } : null;
}

export async function insertEgoSnapshot(q: Queryable, s: { projectId: string; lastTxId: number; memories: number; modelId: string; purpose: Float32Array }): Promise<void> {
  await q.query(`insert into ego_snapshots (project_id, last_tx_id, memories, model_id, purpose) values ($1, $2, $3, $4, $5::real[])`, [
    s.projectId,
    s.lastTxId,
    s.memories,
    s.modelId,
    realArray(s.purpose, 'ego_snapshots.purpose'),
  ]);
}

export interface NorthStarRow {
  node_id: string;
  project_id: string;
  model_id: string;
  vector: number[];
  source: string;
  members: number;
  baseline: number;
  created_at: Date;
  label: string;
}

/** The north star in effect: the newest whose goal node is live. */
export async function activeNorthStar(q: Queryable, projectId: string): Promise<NorthStarRow | null> {
  const [r] = await q.query<NorthStarRow & Record<string, unknown>>(
    `select s.*, n.content as label from north_stars s join nodes n on n.id = s.node_id and n.deleted_at is null
      where s.project_id = $1 order by s.created_at desc limit 1`,
    [projectId],
  );
  return r ? { ...r, vector: r.vector.map(Number), members: Number(r.members), baseline: Number(r.baseline) } : null;
}

export async function insertNorthStar(
  q: Queryable,
  s: { nodeId: string; projectId: string; modelId: string; vector: Float32Array; source: string; members: number; baseline: number },
): Promise<void> {
  await q.query(
    `insert into north_stars (node_id, project_id, model_id, vector, source, members, baseline) values ($1, $2, $3, $4::real[], $5, $6, $7)
     on conflict (node_id) do update set vector = excluded.vector, baseline = excluded.baseline, members = excluded.members`,
    [s.nodeId, s.projectId, s.modelId, realArray(s.vector, 'north_stars.vector'), s.source, s.members, asReal(s.baseline, 'north_stars.baseline')],
  );
}

/** Goal-like memories: the store's own goal nodes and memories tagged goal, pinned or manifest. */
export async function goalNodes(q: Queryable, projectId: string, limit: number): Promise<NodeRecord[]> {
  return q.query<NodeRecord & Record<string, unknown>>(
    `select ${NODE_COLUMNS} from nodes where project_id = $1 and deleted_at is null
        and (kind = 'goal' or tags && array['goal', 'pinned', 'manifest']::text[])
      order by (kind = 'goal') desc, importance desc, nid desc limit $2`,
    [projectId, limit],
  );
}

export interface RunRow {
  id: number;
  service: string;
  project_id: string;
  job_id: string | null;
  trigger: string;
  result: Record<string, unknown>;
  finished_at: Date;
}

export async function recordRun(q: Queryable, r: { service: string; projectId: string; jobId: string | null; trigger: string; result: Record<string, unknown> }): Promise<void> {
  await q.query(`insert into autonomous_runs (service, project_id, job_id, trigger, result) values ($1, $2, $3, $4, $5::jsonb)`, [
    r.service,
    r.projectId,
    r.jobId,
    r.trigger,
    JSON.stringify(r.result),
  ]);
}

/** The newest run of each service (of one project, or any). */
export async function lastRuns(q: Queryable, projectId: string | null): Promise<RunRow[]> {
  const rows = await q.query<RunRow & Record<string, unknown>>(
    `select distinct on (service) id, service, project_id, job_id, trigger, result, finished_at from autonomous_runs
      where $1::text is null or project_id = $1 order by service, id desc`,
    [projectId],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

/** Runs per service (of one project, or any). */
export async function runCounts(q: Queryable, projectId: string | null): Promise<Map<string, number>> {
  const rows = await q.query<{ service: string; n: number }>(`select service, count(*)::int as n from autonomous_runs where $1::text is null or project_id = $1 group by service`, [
    projectId,
  ]);
  return new Map(rows.map((r) => [r.service, Number(r.n)]));
}

/** Projects holding live memories (what a scheduled run visits). */
export async function projectsWithMemories(q: Queryable): Promise<string[]> {
  const rows = await q.query<{ project_id: string }>(`select distinct project_id from nodes where deleted_at is null and kind = 'memory' order by project_id`);
  return rows.map((r) => r.project_id);
}

/** Sets the importance of several nodes in one statement (drift correction), bumping their version. */
export async function setImportance(q: Queryable, rows: ReadonlyArray<{ id: string; importance: number }>): Promise<NodeRecord[]> {
  if (rows.length === 0) return [];
  return q.query<NodeRecord & Record<string, unknown>>(
    `update nodes n set importance = r.importance, version = n.version + 1, updated_at = now()
       from unnest($1::text[], $2::float8[]) as r(id, importance) where n.id = r.id
     returning ${NODE_COLUMNS.split(',')
       .map((c) => `n.${c.trim()}`)
       .join(', ')}`,
    [rows.map((r) => r.id), rows.map((r) => asReal(r.importance, 'nodes.importance'))],
  );
}
