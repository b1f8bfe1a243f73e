import type { Db } from '../../store/db.js';
import { liveEdgesAround } from '../../store/edges-repo.js';
import type { PhaseRun } from './run.js';

/** A path in the live edge graph: its nodes from start to end and the edges between them. */
export interface WalkPath {
  nodes: string[];
  edges: string[];
}

/** Edges read per level of a walk: a hub's thousands of edges are cut to its heaviest. */
const LEVEL_EDGE_CAP = 4_000;

/**
 * Shortest paths (in hops, either direction, any type but those ignored) from `from` to each of
 * `targets` within `maxHops`, breadth first; one edge query per level, each an operation of the
 * phase. Targets not reached within maxHops (or before the budget ran out) are absent.
 */
export async function pathsFrom(
  db: Db,
  from: string,
  targets: ReadonlySet<string>,
  opts: { maxHops: number; ignoreTypes: readonly string[]; run: PhaseRun },
): Promise<Map<string, WalkPath>> {
  const parent = new Map<string, { via: string; edge: string } | null>([[from, null]]);
  const found = new Map<string, WalkPath>();
  let frontier = [from];
  for (let hop = 1; hop <= opts.maxHops && frontier.length > 0 && found.size < targets.size; hop++) {
    await opts.run.checkpoint();
    if (!opts.run.spend()) break;
    const edges = await liveEdgesAround(db, { nodeIds: frontier, edgeTypes: null, minWeight: 0, direction: 'both', limit: LEVEL_EDGE_CAP });
    const next: string[] = [];
    for (const e of edges) {
      if (opts.ignoreTypes.includes(e.edge_type) || parent.has(e.far_id)) continue;
      parent.set(e.far_id, { via: e.outgoing ? e.src : e.dst, edge: e.id });
      next.push(e.far_id);
      if (targets.has(e.far_id)) found.set(e.far_id, trace(parent, e.far_id));
    }
    frontier = next;
  }
  return found;
}

function trace(parent: ReadonlyMap<string, { via: string; edge: string } | null>, end: string): WalkPath {
  const nodes = [end];
  const edges: string[] = [];
  for (let step = parent.get(end); step; step = parent.get(step.via)) {
    nodes.unshift(step.via);
    edges.unshift(step.edge);
  }
  return { nodes, edges };
}
