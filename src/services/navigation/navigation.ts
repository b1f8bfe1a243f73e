import { AppError } from '../../errors.js';
import { enqueueJob } from '../../jobs/define.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Logger } from '../../log.js';
import type { Db } from '../../store/db.js';
import { liveEdgesAround, type EdgeAround } from '../../store/edges-repo.js';
import { coordsOfProject, fitOf, hierarchyStamp, recentlyAccessed, recordAccess } from '../../store/navigation-repo.js';
import { liveNodesById, type NodeRecord } from '../../store/nodes-repo.js';
import { findCausalPath, type CausalPath, type PathDirection } from './causal-path.js';
import { enqueueHierarchyFit, fitJobId, hyperbolicFitJob, type HyperbolicSpace } from './hyperbolic-job.js';
import { linkJob } from './link-job.js';
import type { LinkKind } from './link-plan.js';
import { coneAngle, coneAperture, poincareDistance, type Point } from '../../utl/poincare.js';
import { aroundEdge, navNode, type NavEdge, type NavNode } from './views.js';

export { hyperbolicFitJob, linkJob };

export interface Neighbour extends NavNode, NavEdge {
  depth: number;
  /** The node this one was reached from (the start at depth 1). */
  via: string;
}

export interface NeighbourhoodResult {
  node: NavNode;
  neighbours: Neighbour[];
  truncated: boolean;
}

export interface ConeMember extends NavNode {
  /** Hyperbolic distance between the two points. */
  distance: number;
  /** Angle Ξ at the cone's apex and the cone's half-aperture ψ, in radians: inside when angle ≤ aperture. */
  angle: number;
  aperture: number;
}

export type EntailmentResult =
  | { fitted: false; node: NavNode; reason: 'not_in_hierarchy' | 'not_fitted' }
  | {
      fitted: true;
      node: NavNode;
      norm: number;
      aperture: number;
      ancestors: ConeMember[];
      descendants: ConeMember[];
      stale: boolean;
      fit_job_id: string | null;
      fitted_at: string;
      points: number;
    };

/**
 * The navigation toolset's domain (seed 001 §3.3): neighbourhoods by edge type and weight,
 * causal chains, recent context per session, and entailment cones on fitted coordinates.
 */
export class NavigationService {
  private coords = new Map<string, { fittedAt: number; stamp: string; jobId: string | null; points: Map<string, Point> }>();

  constructor(private readonly deps: { db: Db; queue: JobQueue; logger?: Logger }) {}

  /** A live node by id (as given, or upper-cased: ULIDs are case-insensitive), else NODE_NOT_FOUND. */
  async node(id: string, field = 'node_id'): Promise<NodeRecord> {
    const ref = id.trim();
    const [row] = await liveNodesById(this.deps.db, [...new Set([ref, ref.toUpperCase()])]);
    if (!row) throw new AppError('NODE_NOT_FOUND', `${field}: no live node with id ${ref}.`, { field, id: ref });
    return row;
  }

  async neighbourhood(q: { nodeId: string; depth: number; edgeTypes: readonly string[] | null; minWeight: number; limit: number }): Promise<NeighbourhoodResult> {
    const start = await this.node(q.nodeId);
    const seen = new Map([[start.id, 0]]);
    const reached: Array<{ id: string; depth: number; via: string; edge: EdgeAround }> = [];
    let frontier = [start.id];
    let truncated = false;
    for (let depth = 1; depth <= q.depth && frontier.length > 0 && !truncated; depth++) {
      const room = q.limit - reached.length;
      const edges = await liveEdgesAround(this.deps.db, { nodeIds: frontier, edgeTypes: q.edgeTypes, minWeight: q.minWeight, direction: 'both', limit: room * 4 + 1 });
      const next: string[] = [];
      for (const e of edges) {
        // A node reached by several edges at its depth is listed once per edge (a turn can both
        // follow and cause the next); it is expanded once, and never listed again deeper.
        const at = seen.get(e.far_id);
        if (at !== undefined && at !== depth) continue;
        if (reached.length >= q.limit) {
          truncated = true;
          break;
        }
        reached.push({ id: e.far_id, depth, via: e.outgoing ? e.src : e.dst, edge: e });
        if (at === undefined) {
          seen.set(e.far_id, depth);
          next.push(e.far_id);
        }
      }
      if (edges.length > room * 4) truncated = true;
      frontier = next;
    }
    const nodes = new Map(
      (
        await liveNodesById(
          this.deps.db,
          reached.map((r) => r.id),
        )
      ).map((n) => [n.id, n]),
    );
    return {
      node: navNode(start),
      neighbours: reached.flatMap((r) => {
        const n = nodes.get(r.id);
        return n ? [{ ...navNode(n), ...aroundEdge(r.edge), depth: r.depth, via: r.via }] : [];
      }),
      truncated,
    };
  }

  async causalPath(q: { sourceId: string; targetId: string; maxHops: number; direction: PathDirection }): Promise<CausalPath> {
    const source = await this.node(q.sourceId, 'source_id');
    const target = await this.node(q.targetId, 'target_id');
    return findCausalPath(this.deps.db, { ...q, sourceId: source.id, targetId: target.id });
  }

  /**
   * Records that a caller read or wrote these nodes (get_recent_context's order), keyed by its
   * transport session, else its actor. Bookkeeping: a failure is logged, never the caller's error.
   */
  async recordAccess(caller: { session: string | null; actor: string }, nodes: ReadonlyArray<{ id: string; project_id: string }>): Promise<void> {
    try {
      await recordAccess(this.deps.db, sessionKey(caller), nodes);
    } catch (err) {
      this.deps.logger?.warn({ err }, 'access times not recorded');
    }
  }

  async recent(q: { session: string; sessionOnly: boolean; since: Date | null; limit: number; projectId: string | null }) {
    const rows = await recentlyAccessed(this.deps.db, { sessionId: q.sessionOnly ? q.session : null, projectId: q.projectId, since: q.since, limit: q.limit });
    return rows.map((r) => ({
      ...navNode(r),
      memory_type: r.memory_type,
      tags: r.tags,
      accessed_at: r.accessed_at.toISOString(),
      access_count: r.access_count,
      created_at: r.created_at.toISOString(),
    }));
  }

  /** Job and payload of a project's full automatic-edge run (the build_edges tool runs it). */
  linkProjectJob(projectId: string, kinds?: readonly LinkKind[]) {
    return { job: linkJob, payload: { project_id: projectId, ...(kinds ? { kinds: [...kinds] } : {}) } };
  }

  /** The hierarchy of a project changed (relate added a Hierarchical edge): refit in the background. */
  async hierarchyChanged(projectId: string): Promise<void> {
    await enqueueHierarchyFit(this.deps, projectId);
  }

  /** The fit job to run when a node of the hierarchy has no coordinates yet. */
  async fitJob(projectId: string, space: HyperbolicSpace) {
    const stamp = await hierarchyStamp(this.deps.db, projectId);
    return { job: hyperbolicFitJob, payload: { project_id: projectId, space }, jobId: fitJobId(projectId, space, stamp) };
  }

  /**
   * Ancestors (cones containing the node's point) and descendants (points inside its cone) from
   * the project's fitted coordinates. A fit older than the hierarchy still answers, marked
   * stale, while a refit is enqueued.
   */
  async entailment(q: { nodeId: string; space: HyperbolicSpace; direction: 'ancestors' | 'descendants' | 'both'; limit: number }): Promise<EntailmentResult> {
    const node = await this.node(q.nodeId);
    const stamp = await hierarchyStamp(this.deps.db, node.project_id);
    const fit = await this.loadCoords(node.project_id, q.space);
    const point = fit?.points.get(node.id);
    if (!fit || !point) {
      const inHierarchy = (await liveEdgesAround(this.deps.db, { nodeIds: [node.id], edgeTypes: ['Hierarchical'], minWeight: 0, direction: 'both', limit: 1 })).length > 0;
      return { fitted: false, node: navNode(node), reason: inHierarchy ? 'not_fitted' : 'not_in_hierarchy' };
    }
    const stale = fit.stamp !== stamp;
    if (stale) await enqueueJob(this.deps.queue, hyperbolicFitJob, { project_id: node.project_id, space: q.space }, { jobId: fitJobId(node.project_id, q.space, stamp) });
    const ancestors: Array<{ id: string; d: number; angle: number; aperture: number }> = [];
    const descendants: typeof ancestors = [];
    for (const [id, p] of fit.points) {
      if (id === node.id) continue;
      if (q.direction !== 'descendants') {
        const angle = coneAngle(p, point);
        const aperture = coneAperture(p);
        if (angle <= aperture) ancestors.push({ id, d: poincareDistance(p, point), angle, aperture });
      }
      if (q.direction !== 'ancestors') {
        const angle = coneAngle(point, p);
        const aperture = coneAperture(point);
        if (angle <= aperture) descendants.push({ id, d: poincareDistance(point, p), angle, aperture });
      }
    }
    const byDistance = (a: { d: number }, b: { d: number }) => a.d - b.d;
    ancestors.sort(byDistance).splice(q.limit);
    descendants.sort(byDistance).splice(q.limit);
    const rows = new Map(
      (
        await liveNodesById(
          this.deps.db,
          [...ancestors, ...descendants].map((x) => x.id),
        )
      ).map((n) => [n.id, n]),
    );
    const member = (x: { id: string; d: number; angle: number; aperture: number }): ConeMember[] => {
      const n = rows.get(x.id);
      return n ? [{ ...navNode(n), distance: round(x.d), angle: round(x.angle), aperture: round(x.aperture) }] : [];
    };
    return {
      fitted: true,
      node: navNode(node),
      norm: round(Math.hypot(...point)),
      aperture: round(coneAperture(point)),
      ancestors: ancestors.flatMap(member),
      descendants: descendants.flatMap(member),
      stale,
      fit_job_id: fit.jobId,
      fitted_at: new Date(fit.fittedAt).toISOString(),
      points: fit.points.size,
    };
  }

  /** Coordinates of a project's fit, cached until a newer fit is stored. */
  private async loadCoords(projectId: string, space: string) {
    const key = `${projectId}\u0000${space}`;
    const fit = await fitOf(this.deps.db, projectId, space);
    if (!fit) return null;
    const fittedAt = fit.fitted_at.getTime();
    const cached = this.coords.get(key);
    if (cached && cached.fittedAt === fittedAt && cached.jobId === fit.job_id) return cached;
    const rows = await coordsOfProject(this.deps.db, projectId, space);
    if (rows.length === 0) return null;
    const fresh = { fittedAt, stamp: rows[0]!.hierarchy_sig, jobId: rows[0]!.job_id, points: new Map(rows.map((r) => [r.node_id, r.coords.map(Number)])) };
    this.coords.set(key, fresh);
    return fresh;
  }
}

/** Whose accesses a call records and reads: the transport session, else the actor (stdio has one caller). */
export function sessionKey(caller: { session: string | null; actor: string }): string {
  return caller.session ?? caller.actor;
}

const round = (x: number) => Math.round(x * 10_000) / 10_000;
