import type { Queryable } from './db.js';

/** A known position: the project's node `nid` had `position` nodes of the project before it. */
export interface PositionAnchor {
  nid: number;
  position: number;
}

/**
 * Each node's 0-based order among its project's nodes (by nid, i.e. by write order), deleted
 * ones included so a later deletion never shifts an already-embedded position: what E4 encodes.
 *
 * Counting every earlier node of the project per node made the embed job quadratic (at 10k
 * memories in one project, a 500-node batch counted 2.5 M index entries). Instead, per project:
 * the nodes before the batch's first nid are counted once, from `anchors` (a position the caller
 * learned earlier, at or before that nid) when there is one, and the batch's range is numbered
 * in one ordered scan. Same numbers as counting each node's predecessors. The CTE is
 * materialized: inlined, the planner ran the count once per output row (500 counts of the whole
 * project for a 500-node batch without an anchor: 2.5 s of a 10k import's 25 s).
 */
export async function projectPositions(
  q: Queryable,
  nodes: ReadonlyArray<{ nid: number; project_id: string }>,
  anchors: ReadonlyMap<string, PositionAnchor> = new Map(),
): Promise<Map<number, number>> {
  if (nodes.length === 0) return new Map();
  const ranges = new Map<string, { lo: number; hi: number }>();
  for (const n of nodes) {
    const r = ranges.get(n.project_id);
    ranges.set(n.project_id, { lo: Math.min(r?.lo ?? n.nid, n.nid), hi: Math.max(r?.hi ?? n.nid, n.nid) });
  }
  const projects = [...ranges.keys()];
  // An anchor helps only when it is not after the range's start; else count from the beginning.
  const anchorOf = (p: string) => {
    const a = anchors.get(p);
    return a && a.nid <= ranges.get(p)!.lo ? a : { nid: 0, position: 0 };
  };
  if (projects.length === 1) {
    // One project (every `store`, most import batches): a plain statement whose cached generic
    // plan Postgres keeps; the general one below was planned afresh on nine calls in ten.
    const p = projects[0]!;
    const { lo, hi } = ranges.get(p)!;
    const rows = await q.query<{ nid: number; position: number }>(
      `select n.nid::bigint as nid,
              ($2::bigint + (select count(*) from nodes m where m.project_id = $1 and m.nid >= $3 and m.nid < $4) + row_number() over (order by n.nid) - 1)::int as position
         from nodes n where n.project_id = $1 and n.nid between $4 and $5`,
      [p, anchorOf(p).position, anchorOf(p).nid, lo, hi],
    );
    return new Map(rows.map((r) => [Number(r.nid), Number(r.position)]));
  }
  const rows = await q.query<{ nid: number; position: number }>(
    `with r as materialized (
       select u.project_id, u.lo, u.hi,
              u.anchor_position + (select count(*) from nodes m where m.project_id = u.project_id and m.nid >= u.anchor_nid and m.nid < u.lo) as base
         from unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[]) as u(project_id, anchor_nid, anchor_position, lo, hi)
     )
     select n.nid::bigint as nid, (r.base + row_number() over (partition by n.project_id order by n.nid) - 1)::int as position
       from r join nodes n on n.project_id = r.project_id and n.nid between r.lo and r.hi`,
    [projects, projects.map((p) => anchorOf(p).nid), projects.map((p) => anchorOf(p).position), projects.map((p) => ranges.get(p)!.lo), projects.map((p) => ranges.get(p)!.hi)],
  );
  return new Map(rows.map((r) => [Number(r.nid), Number(r.position)]));
}
