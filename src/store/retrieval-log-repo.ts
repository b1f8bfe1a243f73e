import type { Queryable } from './db.js';
import { accessCtes, distinctNodes } from './navigation-repo.js';

/** One hit of a logged retrieval, in fused order. */
export interface LoggedHit {
  nid: number;
  id: string;
  score: number;
  /** Each signal's rank of the hit (1-based) among the entries the filters allowed. */
  signals: Record<string, number>;
}

export interface RetrievalRecord {
  sessionId: string | null;
  actor: string;
  tool: string;
  projectId: string | null;
  query: string;
  hits: readonly LoggedHit[];
  /** Each signal's own best nids, in its order. */
  signalTop: Readonly<Record<string, readonly number[]>>;
}

export interface LoggedRetrieval {
  id: number;
  at: Date;
  session_id: string | null;
  actor: string;
  tool: string;
  project_id: string | null;
  query: string;
  hits: LoggedHit[];
  signal_top: Record<string, number[]>;
}

/**
 * Inserts one retrieval; with `access`, the same statement records that session's reads of the
 * hit nodes (node_access and node_access_totals, as navigation-repo's recordAccess does):
 * one round trip and one commit instead of three, which was most of a search's store time on
 * PGlite (bench/profile-search.mjs). It runs after the answer (RetrievalLog.record); the tools
 * that read the log or the accesses wait for it.
 */
export async function insertRetrieval(q: Queryable, r: RetrievalRecord, access?: { sessionId: string; nodes: ReadonlyArray<{ id: string; project_id: string }> }): Promise<void> {
  const params: unknown[] = [r.sessionId, r.actor, r.tool, r.projectId, r.query, JSON.stringify(r.hits), JSON.stringify(r.signalTop)];
  let writes = '';
  const nodes = access ? distinctNodes(access.nodes) : [];
  if (access && nodes.length > 0) {
    params.push(
      access.sessionId,
      nodes.map((n) => n.id),
      nodes.map((n) => n.project_id),
    );
    writes = `with ${accessCtes('$8', '$9', '$10')}
     `;
  }
  await q.query(
    `${writes}insert into retrieval_log (session_id, actor, tool, project_id, query, hits, signal_top)
     values ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb)`,
    params,
  );
}

/**
 * The newest retrievals, newest first: of one project (retrievals filtered to it, and unless
 * `strictProject`, those over every project too), one session, and/or since an instant.
 */
export async function recentRetrievals(
  q: Queryable,
  opts: { projectId?: string | null; strictProject?: boolean; sessionId?: string | null; since?: Date | null; limit: number },
): Promise<LoggedRetrieval[]> {
  const rows = await q.query<LoggedRetrieval & Record<string, unknown>>(
    `select id, at, session_id, actor, tool, project_id, query, hits, signal_top from retrieval_log
      where ($1::text is null or project_id = $1 or (not $2 and project_id is null))
        and ($3::text is null or session_id = $3)
        and ($4::timestamptz is null or at >= $4::timestamptz)
      order by id desc limit $5`,
    [opts.projectId ?? null, opts.strictProject ?? false, opts.sessionId ?? null, opts.since ?? null, opts.limit],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

/** Deletes all but the newest `keep` rows; returns how many went. */
export async function pruneRetrievals(q: Queryable, keep: number): Promise<number> {
  const [row] = await q.query<{ n: number }>(
    `with gone as (delete from retrieval_log where id <= (select id from retrieval_log order by id desc offset $1 limit 1) returning 1)
     select count(*)::int as n from gone`,
    [keep],
  );
  return row?.n ?? 0;
}
