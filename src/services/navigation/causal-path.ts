import type { Db } from '../../store/db.js';
import { liveEdgesAround, type EdgeAround } from '../../store/edges-repo.js';
import { liveNodesById } from '../../store/nodes-repo.js';
import { aroundEdge, navNode, type NavEdge, type NavNode } from './views.js';

export type PathDirection = 'forward' | 'backward' | 'bidirectional';

export interface CausalHop extends NavEdge {
  from: string;
  to: string;
}

export interface CausalPath {
  found: boolean;
  /** The chain from source to target; without a route, the walk up to the cycle when one was met (EC-MCP-004), else empty. */
  path: NavNode[];
  hops: CausalHop[];
  cycle_detected: boolean;
  /** The first cycle met, as the nodes from where it starts back to the same node. */
  cycle: string[] | null;
  explored: number;
}

/** Causal edges read per BFS level; a level with more is cut (and reported as explored). */
const LEVEL_LIMIT = 5_000;

/**
 * Breadth-first over Causal edges (forward: cause → effect; backward: effect → cause;
 * bidirectional: either), each node expanded once, at most `maxHops` levels. An edge back to a
 * node on the current walk is a cycle: recorded, never followed.
 */
export async function findCausalPath(db: Db, q: { sourceId: string; targetId: string; maxHops: number; direction: PathDirection }): Promise<CausalPath> {
  const parent = new Map<string, { prev: string; edge: EdgeAround } | null>([[q.sourceId, null]]);
  const onWalk = (id: string, candidate: string): boolean => {
    for (let cur: string | undefined = id; cur !== undefined; cur = parent.get(cur)?.prev) if (cur === candidate) return true;
    return false;
  };
  const walkTo = (id: string): Array<{ id: string; edge: EdgeAround | null }> => {
    const out: Array<{ id: string; edge: EdgeAround | null }> = [];
    for (let cur: string | undefined = id; cur !== undefined;) {
      const p = parent.get(cur);
      out.unshift({ id: cur, edge: p?.edge ?? null });
      cur = p?.prev;
    }
    return out;
  };
  const direction = q.direction === 'forward' ? 'out' : q.direction === 'backward' ? 'in' : 'both';
  let frontier = [q.sourceId];
  let cycle: { walk: Array<{ id: string; edge: EdgeAround | null }>; closing: EdgeAround; to: string } | null = null;
  let reached: string | null = null;

  for (let hop = 1; hop <= q.maxHops && frontier.length > 0 && reached === null; hop++) {
    const edges = await liveEdgesAround(db, { nodeIds: frontier, edgeTypes: ['Causal'], minWeight: 0, direction, limit: LEVEL_LIMIT });
    const next: string[] = [];
    const from = (e: EdgeAround) => (e.outgoing ? e.src : e.dst);
    for (const e of edges) {
      const at = from(e);
      if (parent.get(at)?.edge?.id === e.id) continue; // the edge we came by, seen from its far end
      const far = e.far_id;
      if (far === q.targetId && q.targetId !== q.sourceId) {
        parent.set(far, { prev: at, edge: e });
        reached = far;
        break;
      }
      if (onWalk(at, far)) {
        cycle ??= { walk: walkTo(at), closing: e, to: far };
        if (far === q.targetId) reached = far;
        continue;
      }
      if (parent.has(far)) continue;
      parent.set(far, { prev: at, edge: e });
      next.push(far);
    }
    frontier = next;
  }

  const hopOf = (e: EdgeAround): CausalHop => ({ ...aroundEdge(e), from: e.outgoing ? e.src : e.dst, to: e.far_id });
  let walk: Array<{ id: string; edge: EdgeAround | null }> = [];
  let hops: CausalHop[] = [];
  if (reached !== null && reached !== q.sourceId) {
    walk = walkTo(reached);
    hops = walk.flatMap((w) => (w.edge ? [hopOf(w.edge)] : []));
  } else if (cycle) {
    // No route to the target (or the target is the source): the walk up to the cycle, closing hop included.
    walk = [...cycle.walk, { id: cycle.to, edge: cycle.closing }];
    hops = walk.flatMap((w) => (w.edge ? [hopOf(w.edge)] : []));
  }
  const nodes = new Map((await liveNodesById(db, [...new Set(walk.map((w) => w.id))])).map((n) => [n.id, navNode(n)]));
  const cycleNodes = cycle ? [...cycle.walk.slice(cycle.walk.findIndex((w) => w.id === cycle.to)).map((w) => w.id), cycle.to] : null;
  return {
    found: reached !== null,
    path: walk.flatMap((w) => (nodes.has(w.id) ? [nodes.get(w.id)!] : [])),
    hops,
    cycle_detected: cycle !== null,
    cycle: cycleNodes,
    explored: parent.size,
  };
}
