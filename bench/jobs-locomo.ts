/**
 * Every background job of issue 12 on one LoCoMo dev conversation, each through the tool that
 * runs it on a real MCP client (in memory): duration and throughput of the Kuramoto sync step,
 * threshold recalibration, the NREM and REM dream phases, consolidation, drift correction, the
 * λ refit and the adversarial scan, and of undoing each signal change (its transaction is the
 * price of "every change undoable"). The conversation is imported with Temporal edges between
 * consecutive turns, its questions are asked as an agent would (search, then query; the sync
 * step runs then, at dopamine's baseline), then asked again with the turns they cite as evidence
 * marked relevant (record_feedback) and the rest irrelevant, so the jobs work on the evidence they
 * were built for. Aggregates only (the data is CC BY-NC).
 *
 *   npm run build && node dist/bench/jobs-locomo.js ../shared/data/locomo-dev.json [conversation index]
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer } from '../src/mcp/server.js';
import { tempDir } from '../test/helpers/cli.js';
import { openBenchApp } from './app.js';
import { readLocomo } from './locomo/data.js';
import { batches, conversationStore } from './locomo/dream-store.js';

const [file = '../shared/data/locomo-dev.json', index = '0'] = process.argv.slice(2);

const dir = await tempDir('cg-bench-jobs-');
// Jobs answer in the call (no "accepted" hand-off) however long they take; no automatic sync steps.
const app = await openBenchApp(dir.path, null, { CONTEXT_GRAPH_TOOLSETS: 'all', CONTEXT_GRAPH_SYNC_EVERY: '0', CONTEXT_GRAPH_JOB_WAIT_MS: '600000' });
const client = new Client({ name: 'bench-jobs', version: '1.0.0' });
const [a, b] = InMemoryTransport.createLinkedPair();
await Promise.all([createMcpServer(app, { actor: 'bench-jobs' }).connect(a), client.connect(b)]);

interface Phase {
  counts: Record<string, number>;
}
interface Results {
  search: { hits: Array<{ id: string }> };
  history: { items: Array<{ tx_id: number }> };
  adjust_coupling: { status: string; retrievals_stepped: number | null; r_after: number | null; gain: number | null; changed: unknown[] };
  trigger_recalibration: {
    status: string;
    observations: number | null;
    threshold_before: number | null;
    threshold_after: number | null;
    before: { ece: number | null } | null;
    after: { ece: number | null } | null;
  };
  trigger_dream: { phases: Phase[] };
  trigger_consolidation: { phases: Phase[] };
  trigger_drift_correction: { status: string; changed: number; tx_id: number | null };
  trigger_lambda_recalibration: { status: string; observations: number; tx_id: number | null; before: { lambda_s: number }; after: { lambda_s: number } | null };
  scan_adversarial: { scanned: number | null; flagged_count: number | null };
}

async function call<N extends string>(name: N, args: Record<string, unknown>): Promise<N extends keyof Results ? Results[N] : unknown> {
  const r = (await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 })) as CallToolResult;
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content).slice(0, 400)}`);
  return r.structuredContent as N extends keyof Results ? Results[N] : unknown;
}

const ms: Record<string, number> = {};
async function timed<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const t0 = process.hrtime.bigint();
  const r = await fn();
  ms[label] = Math.round(Number(process.hrtime.bigint() - t0) / 1e4) / 100;
  return r;
}
const perSecond = (n: number, label: string) => Math.round((n / (ms[label]! / 1000)) * 10) / 10;

try {
  const { samples } = await readLocomo(file);
  const sample = samples[Number(index)]!;
  const conv = conversationStore(sample);
  const project = conv.projectId;
  await timed('import', async () => {
    for (const records of [...batches(conv.memories), ...batches(conv.edges)]) await call('import_records', { records, project_id: project });
  });
  await timed('wait_fingerprints', async () => {
    for (let i = 0; i < 6_000; i++) {
      const [row] = await app.db.query<{ n: number }>(`select count(*)::int as n from fingerprints where project_id = $1`, [project]);
      if (Number(row?.n) >= conv.memories.length) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('fingerprints did not finish');
  });
  await timed('questions', async () => {
    for (const q of sample.questions) {
      await call('search', { query_text: q.text, project_id: project, limit: 10, score_threshold: 0 });
      await call('query', { query: q.text, project_id: project });
    }
  });
  // The sync step before any feedback: dopamine at its baseline (gain 1), so every retrieval moves the phases.
  const sync = await timed('kuramoto_sync', () => call('adjust_coupling', { coupling: 0.6, rationale: 'bench: one sync step over every logged retrieval' }));
  const syncTx = (await call('history', { limit: 1 })).items[0]!.tx_id;
  await timed('kuramoto_sync_undo', () => call('undo', { tx_id: syncTx }));
  // Each question again, its shown hits marked: the evidence turns relevant, the rest irrelevant.
  let feedback = 0;
  await timed('questions_with_feedback', async () => {
    for (const q of sample.questions) {
      const r = await call('search', { query_text: q.text, project_id: project, limit: 10, score_threshold: 0 });
      const evidence = new Set(q.evidence.map((d) => conv.ids.get(d)));
      const hits = r.hits.map((h) => h.id);
      for (const relevant of [true, false]) {
        const ids = hits.filter((id) => evidence.has(id) === relevant);
        if (q.category === 5 || q.evidence.length === 0 || ids.length === 0) continue;
        await call('record_feedback', { node_ids: ids, relevant });
        feedback += ids.length;
      }
    }
  });
  const recal = await timed('recalibration', () => call('trigger_recalibration', { rationale: 'bench: feedback on the evidence turns' }));
  const recalTx = (await call('history', { limit: 1 })).items[0]!.tx_id;
  await timed('recalibration_undo', () => call('undo', { tx_id: recalTx }));
  const budget = { max_operations: 100_000, max_ms: 600_000 };
  const nrem = (await timed('dream_nrem', () => call('trigger_dream', { phase: 'nrem', project_id: project, budget }))).phases[0];
  const rem = (await timed('dream_rem', () => call('trigger_dream', { phase: 'rem', project_id: project, budget }))).phases[0];
  const consolidation = (await timed('consolidation', () => call('trigger_consolidation', { project_id: project, budget }))).phases[0];
  await timed('auto_bootstrap_north_star', () => call('auto_bootstrap_north_star', { project_id: project }));
  const drift = await timed('drift_correction', () => call('trigger_drift_correction', { project_id: project, force: true }));
  if (drift.tx_id) await timed('drift_correction_undo', () => call('undo', { tx_id: drift.tx_id }));
  const refit = await timed('lambda_refit', () => call('trigger_lambda_recalibration', { project_id: project }));
  if (refit.tx_id) await timed('lambda_refit_undo', () => call('undo', { tx_id: refit.tx_id }));
  const scan = await timed('scan_adversarial', () => call('scan_adversarial', { project_id: project }));

  const memories = conv.memories.length;
  console.log(
    JSON.stringify(
      {
        conversation: Number(index),
        memories,
        temporal_edges: conv.edges.length,
        questions: sample.questions.length,
        retrievals: sample.questions.length * 3,
        feedback_verdicts: feedback,
        ms,
        throughput_per_s: {
          kuramoto_sync_retrievals: perSecond(sync.retrievals_stepped ?? 0, 'kuramoto_sync'),
          recalibration_observations: perSecond(recal.observations ?? 0, 'recalibration'),
          dream_nrem_replayed: perSecond(nrem?.counts.replayed ?? 0, 'dream_nrem'),
          dream_rem_candidates: perSecond(rem?.counts.candidates ?? 0, 'dream_rem'),
          consolidation_memories: perSecond(consolidation?.counts.memories ?? memories, 'consolidation'),
          drift_correction_memories: perSecond(memories, 'drift_correction'),
          lambda_refit_observations: perSecond(refit.observations, 'lambda_refit'),
          scan_adversarial_memories: perSecond(scan.scanned ?? 0, 'scan_adversarial'),
        },
        kuramoto_sync: { status: sync.status, retrievals: sync.retrievals_stepped, r: sync.r_after, gain: sync.gain, changed: sync.changed },
        recalibration: {
          status: recal.status,
          observations: recal.observations,
          threshold: [recal.threshold_before, recal.threshold_after],
          ece: [recal.before?.ece, recal.after?.ece],
        },
        dream_nrem: nrem?.counts,
        dream_rem: rem?.counts,
        consolidation: consolidation?.counts,
        drift_correction: { status: drift.status, changed: drift.changed },
        lambda_refit: { status: refit.status, observations: refit.observations, before: refit.before?.lambda_s, after: refit.after?.lambda_s },
        scan_adversarial: { scanned: scan.scanned, flagged: scan.flagged_count },
      },
      null,
      2,
    ),
  );
} finally {
  await client.close();
  await app.close();
  await dir.remove();
}
