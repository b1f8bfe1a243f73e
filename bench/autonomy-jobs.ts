/**
 * Durations of the workspace, ego and autonomy reads and of the drift-correction and
 * λ-recalibration jobs on one LoCoMo dev conversation (issue 12). Retrievals are made the way the
 * `search` tool makes them (its top 5 per question recorded as accessed), so meta-UTL has
 * outcomes to fit. Only aggregate figures are printed (the data is CC BY-NC).
 *
 *   npm run build && node dist/bench/autonomy-jobs.js ../shared/data/locomo-dev.json [conversation index]
 */
import { enqueueJob } from '../src/jobs/define.js';
import { tempDir } from '../test/helpers/cli.js';
import { openBenchApp } from './app.js';
import { readLocomo } from './locomo/data.js';

const [file = '../shared/data/locomo-dev.json', index = '0'] = process.argv.slice(2);

async function timed<T>(label: string, out: Record<string, unknown>, fn: () => Promise<T>): Promise<T> {
  const t0 = process.hrtime.bigint();
  const r = await fn();
  out[label] = Math.round(Number(process.hrtime.bigint() - t0) / 1e4) / 100;
  return r;
}

const dir = await tempDir('cg-bench-autonomy-');
const app = await openBenchApp(dir.path);
try {
  const { samples } = await readLocomo(file);
  const sample = samples[Number(index)]!;
  const project = `locomo-${sample.sampleId}`;
  const ms: Record<string, unknown> = {};
  await timed('store_all', ms, async () => {
    for (const t of sample.turns) await app.services.memory.store({ content: t.content, project_id: project, memory_type: 'semantic', valid_from: t.validFrom });
  });
  await timed('wait_fingerprints', ms, async () => {
    for (let i = 0; i < 6_000; i++) {
      const [row] = await app.db.query<{ n: number }>(`select count(*)::int as n from fingerprints where project_id = $1`, [project]);
      if (Number(row?.n) >= sample.turns.length) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('fingerprints did not finish');
  });
  await timed('questions_as_retrievals', ms, async () => {
    for (const q of sample.questions) {
      const { hits } = await app.services.search.hybrid({ text: q.text, limit: 5, projectId: project });
      await app.services.navigation.recordAccess(
        { session: 'bench', actor: 'bench' },
        hits.map((h) => h.node),
      );
    }
  });
  const ws = await timed('get_workspace_status', ms, () => app.services.workspace.workspace(project));
  const cs = await timed('get_consciousness_state', ms, () => app.services.workspace.consciousness(project));
  await timed('get_ego_state', ms, () => app.services.ego.ego(project));
  const star = await timed('auto_bootstrap_north_star', ms, () => app.services.autonomy.bootstrap(project, { actor: 'bench', rationale: null }));
  const drift = await timed('get_alignment_drift', ms, () => app.services.autonomy.drift(project));
  const goals = await timed('discover_sub_goals', ms, () => app.services.autonomy.subGoals(project, null, 10));
  const meta = await timed('get_meta_learning_status', ms, () => app.services.metaUtl.status(project));
  const { job, payload } = app.services.autonomy.driftCorrection({ projectId: project, strength: 0.2, actor: 'bench', rationale: null, trigger: 'tool' });
  const corrected = await timed('drift_correction_job', ms, async () => (await enqueueJob(app.queue, job, payload)).finished(600_000));
  const recal = app.services.metaUtl.recalibration(project);
  const refit = await timed('lambda_recalibration_job', ms, async () => (await enqueueJob(app.queue, recal.job, recal.payload)).finished(600_000));
  const seconds = (label: string) => (ms[label] as number) / 1000;
  console.log(
    JSON.stringify(
      {
        conversation: Number(index),
        memories: sample.turns.length,
        questions: sample.questions.length,
        ms,
        throughput_per_s: {
          drift_correction_memories: Math.round(sample.turns.length / seconds('drift_correction_job')),
          lambda_recalibration_memories: Math.round(refit.observations / seconds('lambda_recalibration_job')),
        },
        workspace: { candidates: ws.candidates, winner_activation: ws.winner?.activation ?? null, margin: ws.margin },
        consciousness: { level: cs.level, state: cs.state, edge_density: cs.edge_density, entropy: cs.activation_entropy },
        north_star: star.status === 'set' ? { source: star.source, members: star.members, clusters: star.clusters, baseline: star.baseline } : star,
        drift: drift ? { ewma: drift.ewma, drift: drift.drift, level: drift.level } : null,
        sub_goals: goals.goals.map((g) => ({ size: g.size, coherence: g.coherence })),
        meta_utl_before: { spearman: meta.spearman, lambda: meta.lambda },
        drift_correction: { status: corrected.status, changed: corrected.changed, before: corrected.weighted_alignment_before, after: corrected.weighted_alignment_after },
        lambda_recalibration: { status: refit.status, before: refit.before, after: refit.after },
      },
      null,
      2,
    ),
  );
} finally {
  await app.close();
  await dir.remove();
}
