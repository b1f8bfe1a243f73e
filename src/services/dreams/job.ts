import { z } from 'zod';
import type { Embedder } from '../../embed/embedder.js';
import { defineJob, type JobHandlerContext } from '../../jobs/define.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Db } from '../../store/db.js';
import { appendDreamPhase, finishDream, startDream, type DreamPhaseRecord } from '../../store/dreams-repo.js';
import { memoryNidsOfProject } from '../../store/navigation-repo.js';
import { nodesByNid, type NodeRecord } from '../../store/nodes-repo.js';
import { embedJob } from '../embedding.js';
import { enqueueGraphEmbedOfNodes } from '../graph-embedding.js';
import type { NearestMemories } from '../navigation/nearest.js';
import { SUMMARY_KIND } from '../summaries.js';
import { planClusters } from './consolidate.js';
import { applyNrem, planNrem, type PhaseOutcome } from './nrem.js';
import type { PhaseEnv } from './phase-env.js';
import { applyRem, planRem } from './rem.js';
import { DreamAborted, PhaseRun } from './run.js';

export const DREAM_PHASES = ['nrem', 'rem', 'full'] as const;
export type DreamPhase = (typeof DREAM_PHASES)[number];

const budget = z.object({ max_operations: z.number().int().positive(), max_ms: z.number().int().positive() });
const settings = {
  dream_id: z.string(),
  project_id: z.string(),
  budget,
  /** The caller's clock (ISO): idle times and decay are measured against it. */
  now: z.string(),
  min_similarity: z.number(),
  sampled: z.record(z.string(), z.object({ text: z.string(), model: z.string() })),
  actor: z.string().nullable(),
};

export const dreamPayload = z.object({
  ...settings,
  phase: z.enum(DREAM_PHASES),
  /** Retrievals and memories since this instant (ISO) are the dream's evidence. */
  since: z.string(),
  min_co_retrievals: z.number().int().min(1),
  max_hops: z.number().int().min(2),
  unused_days: z.number().min(0),
});
export type DreamPayload = z.output<typeof dreamPayload>;

export const consolidationPayload = z.object(settings);
export type ConsolidationPayload = z.output<typeof consolidationPayload>;

/**
 * One progress report: `done` counts reports (it only grows, as MCP progress must); the phase,
 * its step, how far the step is, and the counts so far are the partial result.
 */
const dreamProgress = z.object({
  done: z.number().int(),
  phase: z.string(),
  step: z.string(),
  step_done: z.number().int(),
  step_total: z.number().int(),
  counts: z.record(z.string(), z.number()),
  message: z.string(),
});

export const phaseRecord = z.object({
  phase: z.string(),
  tx_id: z.number().int().nullable().describe('The transaction holding the phase’s changes (undo {tx_id} reverts them); null when it changed nothing.'),
  counts: z.record(z.string(), z.number()),
  ms: z.number().int(),
  stopped_by_budget: z.boolean(),
});

export const dreamResult = z.object({
  dream_id: z.string(),
  project_id: z.string(),
  phase: z.string(),
  status: z.enum(['completed', 'aborted']),
  phases: z.array(phaseRecord).describe('Committed phases, in order.'),
  aborted_in: z.string().nullable().describe('The phase that was rolled back by an abort.'),
});
export type DreamResult = z.output<typeof dreamResult>;

export interface DreamJobDeps {
  db: Db;
  embedder: Embedder;
  nearest: NearestMemories;
  queue: JobQueue;
}

type Ctx = JobHandlerContext<z.input<typeof dreamProgress>, DreamJobDeps>;

/**
 * Runs phases in order, each planned by reading and written in one transaction; records each in
 * the dreams table; an abort rolls back the phase in progress and answers `aborted` with what had
 * committed before it.
 */
async function runPhases(
  ctx: Ctx,
  p: z.output<typeof consolidationPayload>,
  kind: string,
  phases: ReadonlyArray<{ name: string; run(env: PhaseEnv): Promise<PhaseOutcome> }>,
  envOf: (run: PhaseRun, report: PhaseEnv['report']) => PhaseEnv,
): Promise<DreamResult> {
  const { db } = ctx.deps;
  const done: DreamPhaseRecord[] = [];
  const result = (status: 'completed' | 'aborted', abortedIn: string | null): DreamResult => ({
    dream_id: p.dream_id,
    project_id: p.project_id,
    phase: kind,
    status,
    phases: done,
    aborted_in: abortedIn,
  });
  if (!(await startDream(db, p.dream_id))) {
    await finishDream(db, p.dream_id, 'aborted', 'aborted before it started');
    return result('aborted', phases[0]?.name ?? null);
  }
  let seq = 0;
  let current: string | null = null;
  try {
    for (const phase of phases) {
      current = phase.name;
      const run = new PhaseRun({ db, dreamId: p.dream_id, signal: ctx.signal, budget: p.budget });
      const report: PhaseEnv['report'] = (step, stepDone, stepTotal, counts) =>
        ctx.report({
          done: ++seq,
          phase: phase.name,
          step,
          step_done: stepDone,
          step_total: stepTotal,
          counts,
          message: `${phase.name}: ${step} ${stepDone}/${stepTotal}${
            Object.keys(counts).length
              ? ` (${Object.entries(counts)
                  .map(([k, v]) => `${k} ${v}`)
                  .join(', ')})`
              : ''
          }`,
        });
      await report('start', 0, 1, {});
      const outcome = await phase.run(envOf(run, report));
      const record: DreamPhaseRecord = { phase: phase.name, tx_id: outcome.txId, counts: outcome.counts, ms: run.elapsedMs(), stopped_by_budget: run.stoppedByBudget };
      await appendDreamPhase(db, p.dream_id, record);
      done.push(record);
      await report('committed', 1, 1, outcome.counts);
      // New summaries are searchable once embedded; the dream's own changes are already committed.
      if (outcome.createdNids.length > 0) await embedJob.handler({ nids: outcome.createdNids }, { ...ctx, report: async () => {} });
      // Edges the phase added or re-weighted move their ends' E8 (graph) vectors.
      await enqueueGraphEmbedOfNodes(db, ctx.deps.queue, outcome.edgeEnds);
    }
    await finishDream(db, p.dream_id, 'completed');
    return result('completed', null);
  } catch (err) {
    if (err instanceof DreamAborted || ctx.signal.aborted) {
      await finishDream(db, p.dream_id, 'aborted', `aborted in ${current}; that phase was rolled back`);
      return result('aborted', current);
    }
    await finishDream(db, p.dream_id, 'failed', err instanceof Error ? err.message : String(err));
    throw err;
  }
}

function baseEnv(ctx: Ctx, p: z.output<typeof consolidationPayload>, run: PhaseRun, report: PhaseEnv['report']): PhaseEnv {
  return {
    db: ctx.deps.db,
    nearest: ctx.deps.nearest,
    run,
    dreamId: p.dream_id,
    projectId: p.project_id,
    actor: p.actor,
    now: new Date(p.now),
    since: new Date(p.now),
    minCoRetrievals: 2,
    maxHops: 3,
    minSimilarity: p.min_similarity,
    unusedDays: 0,
    sampled: p.sampled,
    report,
  };
}

/** trigger_dream: NREM (replay, Hebbian, consolidation, decay), REM (shortcuts), or both in that order. */
export const dreamJob = defineJob({
  type: 'dreams.dream',
  payload: dreamPayload,
  progress: dreamProgress,
  result: dreamResult,
  attempts: 1,
  cancelledBy: (r) => r.status === 'aborted',
  async handler(p, ctx: Ctx) {
    const nrem = {
      name: 'nrem',
      run: async (env: PhaseEnv) => {
        const plan = await planNrem(env);
        await env.report('commit', 0, 1, { replayed: plan.replayed.length, to_strengthen: plan.strengthen.length, clusters: plan.clusters.length, to_decay: plan.decay.length });
        const out = await applyNrem(env, plan);
        return { ...out, counts: { retrievals_read: plan.retrievalsRead, replayed: plan.replayed.length, ...out.counts } };
      },
    };
    const rem = {
      name: 'rem',
      run: async (env: PhaseEnv) => {
        const plan = await planRem(env);
        await env.report('commit', 0, 1, { candidates: plan.candidates, shortcuts: plan.shortcuts.length });
        const out = await applyRem(env, plan);
        return { ...out, counts: { retrievals_read: plan.retrievalsRead, candidates: plan.candidates, ...out.counts } };
      },
    };
    const phases = p.phase === 'full' ? [nrem, rem] : p.phase === 'nrem' ? [nrem] : [rem];
    return runPhases(ctx, p, p.phase, phases, (run, report) => ({
      ...baseEnv(ctx, p, run, report),
      since: new Date(p.since),
      minCoRetrievals: p.min_co_retrievals,
      maxHops: p.max_hops,
      unusedDays: p.unused_days,
    }));
  },
});

/** Memories of a project to consolidate, oldest first, as many as the budget can look at. */
export async function projectMemories(env: PhaseEnv): Promise<NodeRecord[]> {
  const out: NodeRecord[] = [];
  let after = 0;
  while (out.length < env.run.remaining()) {
    await env.run.checkpoint();
    const nids = await memoryNidsOfProject(env.db, env.projectId, after, 1_000);
    if (nids.length === 0) break;
    out.push(...(await nodesByNid(env.db, nids)).filter((n) => n.kind !== SUMMARY_KIND && n.deleted_at === null).sort((a, b) => a.nid - b.nid));
    after = nids[nids.length - 1]!;
  }
  return out.slice(0, env.run.remaining());
}

/** trigger_consolidation: NREM's near-duplicate consolidation over a whole project. */
export const consolidationJob = defineJob({
  type: 'dreams.consolidate',
  payload: consolidationPayload,
  progress: dreamProgress,
  result: dreamResult,
  attempts: 1,
  cancelledBy: (r) => r.status === 'aborted',
  async handler(p, ctx: Ctx) {
    const consolidate = {
      name: 'consolidation',
      run: async (env: PhaseEnv) => {
        const memories = await projectMemories(env);
        const clusters = await planClusters(env, memories);
        await env.report('commit', 0, 1, { memories: memories.length, clusters: clusters.length });
        const out = await applyNrem(env, { replayed: memories, strengthen: [], associate: [], clusters, decay: [], retrievalsRead: 0 }, 'dream.consolidate');
        return { ...out, counts: { memories: memories.length, summaries_created: out.counts['summaries_created']!, provenance_edges: out.counts['provenance_edges']! } };
      },
    };
    return runPhases(ctx, p, 'consolidation', [consolidate], (run, report) => baseEnv(ctx, p, run, report));
  },
});
