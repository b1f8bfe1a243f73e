import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { tempDir, toolError } from '../helpers/cli.js';
import { inMemoryClient } from '../helpers/in-memory.js';

const PAYMENTS = [
  'The billing service sends invoices to customers on the first of each month.',
  'Failed card payments are retried three times before the invoice is marked unpaid.',
  'Refunds go back to the original card within five business days of the billing correction.',
  'The payments ledger records every invoice, payment and refund with its currency.',
  'Invoice numbers are sequential per customer account in the billing database.',
  'Card payments above ten thousand dollars need a second approval before capture.',
  'The billing team reconciles the payments ledger with the bank statement every night.',
  'Overdue invoices trigger a reminder email to the customer after seven days.',
];
const COOKING = ['Simmer the tomato sauce for an hour with basil.', 'Knead the bread dough for ten minutes before it rises.', 'Roast the vegetables with olive oil and rosemary.'];
const KUBERNETES = [
  'Kubernetes pods restart when the liveness probe fails.',
  'The cluster autoscaler adds nodes when pods are pending.',
  'Helm charts pin the container image tag of every deployment.',
  'A Kubernetes service routes traffic to pods by their labels.',
  'The ingress controller terminates TLS for the cluster.',
  'Persistent volumes keep pod data across container restarts.',
  'A daemonset runs one pod on every node of the cluster.',
  'Namespaces separate the staging and production workloads in the cluster.',
  'The kubelet reports node health to the control plane.',
  'Rolling updates replace pods of a deployment one batch at a time.',
];

// The real app and MCP server in process (the scheduled pass is called directly instead of
// waiting for its timer); automatic edges off so nothing else writes while the test measures.
describe('autonomous services and meta-UTL', () => {
  let app: App;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let c: Client;
  const P = 'auto';

  before(async () => {
    dir = await tempDir();
    app = await createApp(loadConfig({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_TOOLSETS: 'all', CONTEXT_GRAPH_AUTO_EDGES: 'off' }), createLogger('warn'));
    c = await inMemoryClient(app, { name: 'autonomy', actor: 'session-auto' });
  });
  after(async () => {
    await c.close();
    await app.close();
    await dir.remove();
  });

  async function ok(name: string, args: Record<string, unknown>): Promise<any> {
    const r = (await c.callTool({ name, arguments: args })) as CallToolResult;
    assert.equal(r.isError, undefined, `${name}: ${JSON.stringify(r.content)}`);
    return r.structuredContent;
  }
  const store = async (content: string, importance: number, project = P, extra: Record<string, unknown> = {}) =>
    (await ok('store', { content, importance, project_id: project, ...extra })).id as string;

  async function fingerprint(id: string): Promise<any> {
    for (let i = 0; i < 200; i++) {
      const fp = await ok('compute_teleological_vector', { id });
      if (fp.status === 'ready') return fp;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no fingerprint for ${id}`);
  }

  const payments: string[] = [];
  let firstStar = '';

  test('the north star comes from the dominant cluster of important memories; drift is none while new memories serve it', async () => {
    assert.equal((await ok('auto_bootstrap_north_star', { project_id: P })).status, 'not_enough_memories');
    for (const t of COOKING) await store(t, 0.3);
    for (const t of PAYMENTS) payments.push(await store(t, 0.9));
    const star = await ok('auto_bootstrap_north_star', { project_id: P });
    assert.equal(star.status, 'set');
    assert.equal(star.source, 'dominant_cluster');
    assert.ok(star.members >= 6 && star.members <= 8, `members ${star.members}`);
    assert.ok(
      star.terms.some((t: string) => ['billing', 'invoice', 'invoices', 'payments', 'ledger', 'card'].includes(t)),
      `terms ${star.terms}`,
    );
    firstStar = star.north_star_id;
    const ego = await ok('get_ego_state', { project_id: P });
    assert.equal(ego.goals[0].id, firstStar);
    assert.equal(ego.goals[0].source, 'north_star');
    const drift = await ok('get_alignment_drift', { project_id: P });
    assert.equal(drift.drift.level, 'none', JSON.stringify(drift.drift));
    const tooStrong = (await c.callTool({ name: 'trigger_drift_correction', arguments: { project_id: P, strength: 0.9 } })) as CallToolResult;
    assert.equal(toolError(tooStrong)?.code, 'INVALID_PARAMS');
    assert.match(toolError(tooStrong)!.message, /at most 0\.5/);
    const skipped = await ok('trigger_drift_correction', { project_id: P });
    assert.equal(skipped.status, 'skipped');
    assert.equal(skipped.changed, 0);
  });

  test('off-goal memories raise the drift; correction moves importance toward the goal in one undoable transaction', async () => {
    const d0 = (await ok('get_alignment_drift', { project_id: P })).drift;
    for (const t of KUBERNETES) await store(t, 0.5);
    const d1 = (await ok('get_alignment_drift', { project_id: P })).drift;
    assert.ok(d1.ewma < d0.ewma, `${d0.ewma} → ${d1.ewma}`);
    assert.ok(d1.drift > d0.drift);
    assert.notEqual(d1.level, 'none', JSON.stringify(d1));
    assert.ok(d1.recent[0].alignment < d0.recent[0].alignment);

    const progress: number[] = [];
    const r = (await c.callTool({ name: 'trigger_drift_correction', arguments: { project_id: P, strength: 0.2 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    })) as CallToolResult;
    assert.equal(r.isError, undefined, JSON.stringify(r.content));
    const fixed = r.structuredContent as any;
    assert.equal(fixed.status, 'corrected');
    assert.ok(fixed.changed > 0 && fixed.raised > 0 && fixed.lowered > 0, JSON.stringify(fixed));
    assert.ok(fixed.weighted_alignment_after > fixed.weighted_alignment_before);
    assert.match(fixed.reason, /drift correction toward north star/);
    assert.ok(progress.length > 0, 'the job reported progress');
    const d2 = (await ok('get_alignment_drift', { project_id: P })).drift;
    assert.equal(d2.importance_weighted_alignment, fixed.weighted_alignment_after);
    const entry = (await ok('query', { id: payments[0] })).items[0];
    assert.ok(entry.importance > 0.9, `on-goal memory raised: ${entry.importance}`);
    const history = await ok('history', { limit: 1 });
    assert.equal(history.items[0].op, 'drift_correction');
    assert.match(history.items[0].rationale, /alignment EWMA/);

    await ok('undo', {});
    const d3 = (await ok('get_alignment_drift', { project_id: P })).drift;
    assert.equal(d3.importance_weighted_alignment, fixed.weighted_alignment_before, 'undo restored every importance');
    assert.equal((await ok('query', { id: payments[0] })).items[0].importance, 0.9);
  });

  test('a manifest memory sets the north star; undo brings the previous one back', async () => {
    await store('Our purpose: run the Kubernetes clusters reliably for every team.', 1, P, { tags: ['manifest'] });
    const star = await ok('auto_bootstrap_north_star', { project_id: P, rationale: 'the platform team owns this project now' });
    assert.equal(star.source, 'manifest');
    assert.equal(star.members, 1);
    assert.equal(star.replaced, firstStar);
    assert.equal((await ok('get_alignment_drift', { project_id: P })).drift.north_star.id, star.north_star_id);
    await ok('undo', {});
    assert.equal((await ok('get_alignment_drift', { project_id: P })).drift.north_star.id, firstStar);
  });

  test('discover_sub_goals separates the themes and ranks them by importance', async () => {
    const r = await ok('discover_sub_goals', { project_id: P, k: 3 });
    assert.equal(r.k, 3);
    assert.equal(r.goals.length, 3);
    for (let i = 1; i < r.goals.length; i++) assert.ok(r.goals[i - 1].importance_mass >= r.goals[i].importance_mass);
    const top = r.goals[0];
    assert.ok(
      top.examples.every((e: any) => PAYMENTS.some((p) => e.snippet === p)),
      JSON.stringify(top.examples),
    );
    assert.ok(top.alignment_to_north_star > r.goals[r.goals.length - 1].alignment_to_north_star);
    assert.ok(top.label.length > 0);
    const bad = (await c.callTool({ name: 'discover_sub_goals', arguments: { project_id: P, k: 1 } })) as CallToolResult;
    assert.equal(toolError(bad)?.code, 'INVALID_PARAMS');
    assert.match(toolError(bad)!.message, /at least 2/);
  });

  test('get_autonomous_status reports the runs; a scheduled pass queues recalibration and records its trigger', async () => {
    const s = await ok('get_autonomous_status', { project_id: P });
    const of = (name: string) => s.services.find((x: any) => x.name === name);
    assert.equal(of('north_star_bootstrap').runs, 2);
    assert.equal(of('drift_correction').runs, 1);
    assert.equal(of('drift_correction').last_run.trigger, 'tool');
    assert.equal(of('drift_correction').schedule.enabled, false, 'scheduled runs are off by default');
    assert.equal(s.north_star.id, firstStar);
    const queued = await app.services.autonomy.scheduledPass();
    assert.ok(queued.some((q) => q.project_id === P && q.job === 'lambda-recalibration'));
    for (let i = 0; i < 200; i++) {
      const st = await ok('get_autonomous_status', { project_id: P });
      const last = st.services.find((x: any) => x.name === 'lambda_recalibration').last_run;
      if (last?.trigger === 'schedule') return;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.fail('the scheduled recalibration never ran');
  });

  test('meta-UTL: recalibration refits λ from retrievals, and the refit λ changes L from then on', async () => {
    const M = 'meta';
    const empty = await ok('trigger_lambda_recalibration', { project_id: 'nothing-here' });
    assert.equal(empty.status, 'insufficient_data');
    const ids: string[] = [];
    for (const t of [...PAYMENTS.slice(0, 4), ...COOKING, ...KUBERNETES.slice(0, 3)]) ids.push(await store(t, 0.5, M));
    const fps = new Map<string, any>();
    for (const id of ids) fps.set(id, await fingerprint(id));
    // Retrievals that L under the lifecycle λ predicts badly: the lowest-L memories are read most.
    const byL = [...ids].sort((x, y) => fps.get(x).learning - fps.get(y).learning);
    for (const [i, id] of byL.entries()) for (let k = 0; k < byL.length - i; k++) await ok('query', { id });
    const before = await ok('get_meta_learning_status', { project_id: M });
    assert.equal(before.observations, ids.length);
    assert.equal(before.lambda.source, 'lifecycle');
    assert.ok(before.spearman < 0, `L did not predict retrievals: ${before.spearman}`);
    assert.ok(before.bottom_quartile_retrievals > before.top_quartile_retrievals);

    const r = await ok('trigger_lambda_recalibration', { project_id: M });
    assert.equal(r.status, 'recalibrated', JSON.stringify(r));
    assert.equal(r.grid.length, 19);
    assert.ok(r.after.correlation >= r.before.correlation);
    assert.equal(r.after.correlation, Math.max(...r.grid.map((g: any) => g.correlation ?? -2)));
    assert.notEqual(r.after.lambda_s, r.before.lambda_s, JSON.stringify(r.grid));
    const after = await ok('get_meta_learning_status', { project_id: M });
    assert.equal(after.lambda.source, 'fitted');
    assert.equal(after.lambda.lambda_s, r.after.lambda_s);
    assert.equal(after.spearman, r.after.correlation, 'the stored L were recomputed');
    const changed = ids.filter((id) => fps.get(id).learning !== null);
    let moved = 0;
    for (const id of changed) if ((await fingerprint(id)).learning !== fps.get(id).learning) moved++;
    assert.ok(moved > 0, 'stored L changed');

    // A memory written afterwards gets L under the refit λ.
    const fresh = await fingerprint(await store('The invoice reminder email now goes out after five days.', 0.5, M));
    const { utlWeight } = await import('../../src/services/fingerprints.js');
    const lOf = (lambdaS: number) => {
      const w = fresh.spaces.map((s: any) => utlWeight(s.space));
      const total = w.reduce((a: number, x: number) => a + x, 0);
      const dS = fresh.spaces.reduce((a: number, s: any, i: number) => a + w[i] * s.surprise, 0) / total;
      const dC = fresh.spaces.reduce((a: number, s: any, i: number) => a + w[i] * s.coherence, 0) / total;
      return Math.pow(dS, lambdaS) * Math.pow(dC, 1 - lambdaS);
    };
    assert.ok(Math.abs(fresh.learning - lOf(r.after.lambda_s)) < 1e-3, `${fresh.learning} vs ${lOf(r.after.lambda_s)}`);
    assert.ok(Math.abs(lOf(r.after.lambda_s) - lOf(r.before.lambda_s)) > 1e-3, 'the refit λ gives another L than the lifecycle one');

    const log = await ok('get_meta_learning_log', { project_id: M });
    assert.equal(log.entries[0].event, 'lambda_recalibration');
    assert.equal(log.entries[0].details.after.lambda_s, r.after.lambda_s);

    // The refit is one logged transaction naming its reason: undo puts the lifecycle λ and every rewritten L back.
    const tx = (await ok('history', { limit: 20 })).items.find((i: any) => i.tx_id === r.tx_id);
    assert.equal(tx.op, 'lambda_recalibration');
    assert.equal(tx.rationale, r.reason);
    const undone = await ok('undo', { tx_id: r.tx_id });
    assert.deepEqual(undone.entities, [{ entity: 'signal', entity_id: `lambda:${M}`, change_type: 'update' }]);
    assert.equal((await ok('get_meta_learning_status', { project_id: M })).lambda.source, 'lifecycle');
    for (const id of changed) assert.equal((await fingerprint(id)).learning, fps.get(id).learning, 'L as the lifecycle λ gave it');
    await ok('undo', { redo: true });
    const redone = await ok('get_meta_learning_status', { project_id: M });
    assert.equal(redone.lambda.source, 'fitted');
    assert.equal(redone.lambda.lambda_s, r.after.lambda_s);
  });
});
