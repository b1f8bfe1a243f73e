import { enqueueJob } from '../../jobs/define.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Db } from '../../store/db.js';
import { insertNode, lockNodesById } from '../../store/nodes-repo.js';
import { softDeleteNodes } from '../../store/nodes-repo.js';
import { activeNorthStar, insertNorthStar, lastRuns, memorySignals, projectsWithMemories, recordRun, runCounts } from '../../store/workspace-repo.js';
import type { EmbeddingScheduler } from '../embedding-scheduler.js';
import { curate } from '../curation.js';
import { navNode } from '../navigation/views.js';
import { image, newNode } from '../writes.js';
import { driftCorrectionJob } from './drift-job.js';
import { lambdaRecalibrationJob } from './meta-utl-job.js';
import { cosine, round4 } from './math.js';
import { DRIFT_LEVELS, embeddedMemories, goalClusters, goalVector, measureDrift, MIN_MEMORIES, type Drift } from './north-star.js';

export interface AutonomySchedule {
  /** Minutes between scheduled passes; 0 = off (the default). */
  intervalMinutes: number;
  /** Drift level at or above which a scheduled pass corrects. */
  driftLevel: Drift['level'];
  /** Importance change cap of a scheduled correction. */
  strength: number;
}

/**
 * Autonomous services (seed 001 §1.3, contextgraph.md §11): the north star (goal vector), its
 * drift, the correction job, candidate sub-goals, and a scheduled pass that runs correction and
 * λ recalibration when configured. Every change is a logged transaction naming its reason.
 */
export class AutonomyService {
  constructor(
    private readonly deps: {
      db: Db;
      queue: JobQueue;
      embedding: Pick<EmbeddingScheduler, 'schedule'>;
      e1ModelId: () => string | null;
      schedule: AutonomySchedule;
    },
  ) {}

  /**
   * Sets the project's north star: the manifest's vector when memories are tagged manifest or
   * pinned, else the importance-weighted centroid of the heaviest E1 cluster of its most
   * important memories. Written as a `goal` node (the previous one is retired in the same
   * transaction), so `undo` restores the previous north star.
   */
  async bootstrap(projectId: string, meta: { actor: string | null; rationale: string | null }) {
    const modelId = this.deps.e1ModelId();
    const memories = modelId ? await embeddedMemories(this.deps.db, projectId, modelId) : [];
    const goal = goalVector(memories);
    if (!goal || !modelId) return { status: 'not_enough_memories' as const, needed: MIN_MEMORIES, found: memories.length };
    const baseline = memories.reduce((s, m) => s + cosine(m.vector, goal.vector), 0) / memories.length;
    const previous = await activeNorthStar(this.deps.db, projectId);
    const label = `North star of ${projectId}: ${goal.terms.join(', ') || 'its most important memories'}`;
    const committed = await curate(
      this.deps.db,
      'north_star',
      { actor: meta.actor, rationale: meta.rationale ?? `north star from the ${goal.source === 'manifest' ? 'manifest' : 'dominant cluster'} of ${goal.members.length} memories` },
      async (tx, log) => {
        const retired = previous ? await lockNodesById(tx, [previous.node_id]) : [];
        for (const old of retired.filter((n) => n.deleted_at === null)) {
          const [gone] = await softDeleteNodes(tx, [old.id]);
          log({ entity: 'node', entityId: old.id, before: image(old), after: image(gone) });
        }
        const node = await insertNode(
          tx,
          newNode({
            kind: 'goal',
            project_id: projectId,
            content: label,
            tags: ['north_star'],
            importance: 1,
            metadata: { north_star: { source: goal.source, members: goal.members.length, terms: goal.terms, member_ids: goal.members.slice(0, 20).map((m) => m.id) } },
          }),
        );
        log({ entity: 'node', entityId: node.id, before: null, after: image(node) });
        await insertNorthStar(tx, { nodeId: node.id, projectId, modelId, vector: goal.vector, source: goal.source, members: goal.members.length, baseline });
        return { nodeIds: [node.id], result: node };
      },
    );
    await this.deps.embedding.schedule([committed.result]);
    const result = { north_star_id: committed.result.id, source: goal.source, members: goal.members.length, terms: goal.terms, baseline: round4(baseline) };
    await recordRun(this.deps.db, { service: 'north_star_bootstrap', projectId, jobId: null, trigger: 'tool', result: { ...result, tx_id: committed.txId } });
    return {
      status: 'set' as const,
      ...result,
      label,
      clusters: goal.clusters,
      replaced: previous?.node_id ?? null,
      tx_id: committed.txId,
      reversal_hash: committed.reversalHash,
      sample: goal.members.slice(0, 5).map((m) => navNode({ ...m, kind: 'memory', project_id: projectId } as never)),
    };
  }

  drift(projectId: string): Promise<Drift | null> {
    return measureDrift(this.deps.db, projectId);
  }

  /** Job and payload of a drift correction (trigger_drift_correction runs it). */
  driftCorrection(p: { projectId: string; strength: number; actor: string | null; rationale: string | null; trigger: 'tool' | 'schedule' }) {
    return { job: driftCorrectionJob, payload: { project_id: p.projectId, strength: p.strength, actor: p.actor, rationale: p.rationale, trigger: p.trigger } };
  }

  /** Candidate sub-goals: E1 clusters of the most important memories, labelled by their distinctive terms. */
  async subGoals(projectId: string, k: number | null, limit: number) {
    const modelId = this.deps.e1ModelId();
    const memories = modelId ? await embeddedMemories(this.deps.db, projectId, modelId) : [];
    if (memories.length < MIN_MEMORIES) return { memories: memories.length, k: 0, goals: [] };
    const star = await activeNorthStar(this.deps.db, projectId);
    const clusters = goalClusters(memories, k);
    const totalMass = clusters.reduce((s, c) => s + c.mass, 0);
    return {
      memories: memories.length,
      k: clusters.length,
      goals: clusters.slice(0, limit).map((c, i) => ({
        rank: i + 1,
        label: c.terms.join(', ') || `cluster ${i + 1}`,
        terms: c.terms,
        size: c.members.length,
        importance_mass: round4(c.mass),
        share: totalMass > 0 ? round4(c.mass / totalMass) : 0,
        coherence: round4(c.coherence),
        alignment_to_north_star: star && star.vector.length === c.centroid.length ? round4(cosine(c.centroid, star.vector)) : null,
        examples: c.members.slice(0, 3).map((m) => navNode({ ...m, kind: 'memory', project_id: projectId } as never)),
      })),
    };
  }

  async status(projectId: string | null) {
    const [runs, counts] = await Promise.all([lastRuns(this.deps.db, projectId), runCounts(this.deps.db, projectId)]);
    const last = (service: string) => {
      const r = runs.find((x) => x.service === service);
      return r ? { at: r.finished_at.toISOString(), project_id: r.project_id, trigger: r.trigger, job_id: r.job_id, result: r.result } : null;
    };
    const { intervalMinutes, driftLevel, strength } = this.deps.schedule;
    const scheduled = intervalMinutes > 0;
    const service = (name: string, tool: string, schedule: Record<string, unknown> | null) => ({
      name,
      tool,
      schedule: schedule ? { enabled: scheduled, interval_minutes: intervalMinutes, ...schedule } : null,
      runs: counts.get(name) ?? 0,
      last_run: last(name),
    });
    const star = projectId ? await activeNorthStar(this.deps.db, projectId) : null;
    const drift = projectId && star ? await this.drift(projectId) : null;
    return {
      project_id: projectId,
      services: [
        service('north_star_bootstrap', 'auto_bootstrap_north_star', null),
        service('drift_correction', 'trigger_drift_correction', { when_drift_at_least: driftLevel, strength }),
        service('lambda_recalibration', 'trigger_lambda_recalibration', {}),
      ],
      north_star: star ? { id: star.node_id, label: star.label, source: star.source, created_at: star.created_at.toISOString() } : null,
      drift: drift ? { ewma: drift.ewma, drift: drift.drift, level: drift.level } : null,
    };
  }

  /**
   * One scheduled pass over every project: drift correction where drift reached the configured
   * level, and λ recalibration. Enqueued as jobs (the worker runs them); returns what it queued.
   */
  async scheduledPass(): Promise<Array<{ project_id: string; job: string; job_id: string }>> {
    const queued: Array<{ project_id: string; job: string; job_id: string }> = [];
    // One id per project and interval: front ends whose timers fire together queue each job once.
    const slot = Math.floor(Date.now() / Math.max(1, this.deps.schedule.intervalMinutes * 60_000));
    for (const projectId of await projectsWithMemories(this.deps.db)) {
      const drift = await this.drift(projectId);
      // Alignment does not move with importance, so drift stays high after a correction: correct
      // again only once new memories arrived since the last correction.
      const last = (await lastRuns(this.deps.db, projectId)).find((r) => r.service === 'drift_correction');
      const [newest] = await memorySignals(this.deps.db, projectId, 1);
      const fresh = !last || (newest !== undefined && newest.created_at > last.finished_at);
      if (drift && fresh && DRIFT_LEVELS.indexOf(drift.level) >= DRIFT_LEVELS.indexOf(this.deps.schedule.driftLevel)) {
        const { job, payload } = this.driftCorrection({ projectId, strength: this.deps.schedule.strength, actor: 'autonomy', rationale: null, trigger: 'schedule' });
        const h = await enqueueJob(this.deps.queue, job, payload, { jobId: `autonomy-drift-${projectId}-${slot}` });
        queued.push({ project_id: projectId, job: job.type, job_id: h.id });
      }
      const h = await enqueueJob(this.deps.queue, lambdaRecalibrationJob, { project_id: projectId, trigger: 'schedule' }, { jobId: `autonomy-lambda-${projectId}-${slot}` });
      queued.push({ project_id: projectId, job: lambdaRecalibrationJob.type, job_id: h.id });
    }
    return queued;
  }
}
