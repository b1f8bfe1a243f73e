import { newId } from '../../ids.js';
import { AppError } from '../../errors.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Db } from '../../store/db.js';
import { dreamById, insertDream, liveShortcuts, openDreamOf, pruningRows, recentDreams, requestDreamAbort, type DreamRow } from '../../store/dreams-repo.js';
import type { EdgeRecord } from '../../store/edges-repo.js';
import { vectorsOf } from '../../store/navigation-repo.js';
import { liveNodesById } from '../../store/nodes-repo.js';
import type { Clock } from '../clock.js';
import type { NearestMemories } from '../navigation/nearest.js';
import { LINK_SPACE } from '../navigation/nearest.js';
import { navNode, type NavNode } from '../navigation/views.js';
import { pruningScore } from './evidence.js';
import { consolidationJob, dreamJob, projectMemories, type ConsolidationPayload, type DreamPayload, type DreamPhase } from './job.js';
import { replaySet } from './nrem.js';
import { loadEvidence, type PhaseEnv } from './phase-env.js';
import type { DreamBudget } from './run.js';
import { planClusters, type ClusterPlan } from './consolidate.js';
import { PhaseRun } from './run.js';

export { consolidationJob, dreamJob };
export type { DreamRow };

export const DEFAULT_BUDGET: DreamBudget = { max_operations: 5_000, max_ms: 120_000 };
const HOUR_MS = 3_600_000;

export interface DreamSettings {
  projectId: string;
  budget: DreamBudget;
  windowHours: number;
  minCoRetrievals: number;
  maxHops: number;
  minSimilarity: number;
  unusedDays: number;
  sampled: Record<string, { text: string; model: string }>;
  actor: string | null;
}

export interface ShortcutView {
  edge_id: string;
  from: NavNode;
  to: NavNode;
  confidence: number;
  weight: number;
  hops_replaced: number;
  path: NavNode[];
  co_retrievals: number;
  queries: string[];
  dream_id: string | null;
  created_at: string;
}

export interface PruningCandidate {
  node: NavNode;
  score: number;
  importance: number;
  access_count: number;
  idle_days: number;
  idle_rank: number;
  redundancy: number;
  /** What made it redundant: a summary covering it, or its nearest neighbour's similarity. */
  redundant_with: { kind: 'summary' | 'near_duplicate' | 'none'; similarity: number };
}

/**
 * Dreams and consolidation (issue 12): starts runs as jobs, reports them from the dreams table
 * and the queue, aborts them, and reads what they left (shortcuts) or suggest (pruning).
 */
export class DreamService {
  constructor(private readonly deps: { db: Db; queue: JobQueue; nearest: NearestMemories; clock: Clock }) {}

  /** Records a queued dream and returns the job and payload for the caller to run. */
  async prepareDream(phase: DreamPhase, s: DreamSettings): Promise<{ job: typeof dreamJob; payload: DreamPayload }> {
    const id = `dream-${newId()}`;
    const now = this.deps.clock.now();
    await insertDream(this.deps.db, { id, projectId: s.projectId, phase, actor: s.actor, budget: { ...s.budget } });
    return {
      job: dreamJob,
      payload: {
        dream_id: id,
        project_id: s.projectId,
        phase,
        budget: s.budget,
        now: now.toISOString(),
        since: new Date(now.getTime() - s.windowHours * HOUR_MS).toISOString(),
        min_co_retrievals: s.minCoRetrievals,
        max_hops: s.maxHops,
        min_similarity: s.minSimilarity,
        unused_days: s.unusedDays,
        sampled: s.sampled,
        actor: s.actor,
      },
    };
  }

  async prepareConsolidation(
    s: Pick<DreamSettings, 'projectId' | 'budget' | 'minSimilarity' | 'sampled' | 'actor'>,
  ): Promise<{ job: typeof consolidationJob; payload: ConsolidationPayload }> {
    const id = `dream-${newId()}`;
    await insertDream(this.deps.db, { id, projectId: s.projectId, phase: 'consolidation', actor: s.actor, budget: { ...s.budget } });
    return {
      job: consolidationJob,
      payload: {
        dream_id: id,
        project_id: s.projectId,
        budget: s.budget,
        now: this.deps.clock.now().toISOString(),
        min_similarity: s.minSimilarity,
        sampled: s.sampled,
        actor: s.actor,
      },
    };
  }

  /**
   * The near-duplicate clusters a run would summarize now (NREM over its replay set, consolidation
   * over the project), for a tool that asks the client's model to write their summaries: sampling
   * runs on the caller's connection, not in a job. The job uses a sampled text only for a cluster
   * with exactly the same members.
   */
  async clustersToSample(opts: { mode: 'nrem' | 'consolidation'; projectId: string; minSimilarity: number; windowHours: number; budget: DreamBudget }): Promise<ClusterPlan[]> {
    const now = this.deps.clock.now();
    const env: PhaseEnv = {
      db: this.deps.db,
      nearest: this.deps.nearest,
      run: new PhaseRun({ db: this.deps.db, dreamId: 'planning', signal: new AbortController().signal, budget: opts.budget }),
      dreamId: 'planning',
      projectId: opts.projectId,
      actor: null,
      now,
      since: new Date(now.getTime() - opts.windowHours * HOUR_MS),
      minCoRetrievals: 2,
      maxHops: 3,
      minSimilarity: opts.minSimilarity,
      unusedDays: 0,
      sampled: {},
      report: async () => {},
    };
    const memories = opts.mode === 'nrem' ? (await replaySet(env, await loadEvidence(env))).slice(0, opts.budget.max_operations) : await projectMemories(env);
    return planClusters(env, memories);
  }

  /** The run of `dreamId`, or the newest runs (open ones first) of a project or of all. */
  async status(opts: { dreamId?: string | undefined; projectId: string | null; limit: number }): Promise<Array<DreamRow & { job_state: string }>> {
    const rows = opts.dreamId ? [await this.dream(opts.dreamId)] : await recentDreams(this.deps.db, { projectId: opts.projectId, limit: opts.limit });
    return Promise.all(rows.map(async (r) => ({ ...r, job_state: (await this.deps.queue.state?.(r.id))?.state ?? 'unknown' })));
  }

  async dream(id: string): Promise<DreamRow> {
    const row = await dreamById(this.deps.db, id);
    if (!row) throw new AppError('JOB_NOT_FOUND', `No dream with id ${id}; get_dream_status lists the recent ones.`, { dream_id: id });
    return row;
  }

  /**
   * Asks a run to stop: the flag in the dreams table (read by the job wherever it runs, every
   * 200 ms) and a cancel of its job (at once when it runs in this process). Without an id, the
   * project's open run. Answers the run as it stands; a finished run is left as it was.
   */
  async abort(opts: { dreamId?: string | undefined; projectId: string }): Promise<{ row: DreamRow; requested: boolean }> {
    const target = opts.dreamId ? await this.dream(opts.dreamId) : await openDreamOf(this.deps.db, opts.projectId);
    if (!target) throw new AppError('JOB_NOT_FOUND', `No queued or running dream in project ${opts.projectId}.`, { project_id: opts.projectId });
    if (target.status !== 'queued' && target.status !== 'running') return { row: target, requested: false };
    // The cancel first: it stops a job of this process at once, while the flag may wait for the
    // phase's transaction (PGlite has one connection) and serves a worker elsewhere.
    await this.deps.queue.cancel?.(target.id, `dream ${target.id} was aborted`).catch(() => false);
    await requestDreamAbort(this.deps.db, target.id);
    return { row: await this.dream(target.id), requested: true };
  }

  /** Live Shortcut edges with their endpoints and the path each replaces. */
  async shortcuts(opts: { projectId: string | null; minConfidence: number; limit: number }): Promise<ShortcutView[]> {
    const edges = await liveShortcuts(this.deps.db, opts);
    const ids = new Set<string>();
    for (const e of edges) for (const id of [e.src, e.dst, ...pathOf(e)]) ids.add(id);
    const nodes = new Map((await liveNodesById(this.deps.db, [...ids])).map((n) => [n.id, navNode(n)]));
    return edges.map((e) => ({
      edge_id: e.id,
      from: nodes.get(e.src)!,
      to: nodes.get(e.dst)!,
      confidence: e.confidence,
      weight: e.weight,
      hops_replaced: typeof e.metadata['hops'] === 'number' ? e.metadata['hops'] : pathOf(e).length - 1,
      path: pathOf(e).flatMap((id) => nodes.get(id) ?? []),
      co_retrievals: typeof e.metadata['co_retrievals'] === 'number' ? e.metadata['co_retrievals'] : 0,
      queries: Array.isArray(e.metadata['queries']) ? (e.metadata['queries'] as string[]) : [],
      dream_id: typeof e.metadata['dream_id'] === 'string' ? e.metadata['dream_id'] : null,
      created_at: new Date(e.created_at).toISOString(),
    }));
  }

  /**
   * Memories worth reviewing for removal, most likely first: low importance × low access ×
   * idle time (rank within the project) × redundancy (covered by a summary: 1; else its nearest
   * E1 neighbour's cosine). Reads only; nothing is deleted.
   */
  async pruningCandidates(opts: { projectId: string; limit: number }): Promise<PruningCandidate[]> {
    const rows = await pruningRows(this.deps.db, { projectId: opts.projectId, now: this.deps.clock.now(), limit: opts.limit * 5 });
    const vectors = await vectorsOf(
      this.deps.db,
      LINK_SPACE,
      rows.map((r) => r.nid),
    );
    const nodes = new Map(
      (
        await liveNodesById(
          this.deps.db,
          rows.map((r) => r.id),
        )
      ).map((n) => [n.id, n]),
    );
    const out: PruningCandidate[] = [];
    for (const r of rows) {
      const node = nodes.get(r.id);
      if (!node) continue;
      let redundantWith: PruningCandidate['redundant_with'] = { kind: 'none', similarity: 0 };
      if (r.summaries > 0) redundantWith = { kind: 'summary', similarity: 1 };
      else {
        const v = vectors.get(r.nid);
        const near = v ? (await this.deps.nearest.nearest(opts.projectId, v, 3)).find((n) => n.nid !== r.nid) : undefined;
        if (near) redundantWith = { kind: 'near_duplicate', similarity: Math.max(0, Math.min(1, near.similarity)) };
      }
      const redundancy = redundantWith.similarity;
      out.push({
        node: navNode(node),
        score: pruningScore({ importance: r.importance, accessCount: r.access_count, idleRank: r.idle_rank, redundancy }),
        importance: r.importance,
        access_count: r.access_count,
        idle_days: Math.round(r.idle_days * 100) / 100,
        idle_rank: Math.round(r.idle_rank * 1000) / 1000,
        redundancy: Math.round(redundancy * 1000) / 1000,
        redundant_with: redundantWith,
      });
    }
    return out.sort((a, b) => b.score - a.score).slice(0, opts.limit);
  }
}

function pathOf(e: EdgeRecord): string[] {
  const p = e.metadata['path'];
  return Array.isArray(p) ? (p as string[]) : [e.src, e.dst];
}
