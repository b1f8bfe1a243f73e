import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { jaccard, wordSet } from '../../src/services/mmr.js';
import { SIGNAL_WEIGHTS } from '../../src/services/search.js';
import { tempDir } from '../helpers/cli.js';
import { inMemoryClient } from '../helpers/in-memory.js';

// The learning signals of issue 12 through a real MCP client: each subsystem's number comes from
// what was logged and recorded, and changes what search does.
describe('signals: Kuramoto sync, neuromodulation, calibration, steering', () => {
  let app: App;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let client: Client;

  before(async () => {
    dir = await tempDir();
    // No automatic sync steps: the tests decide when one runs (adjust_coupling runs one).
    const config = loadConfig({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_AUTO_EDGES: 'off', CONTEXT_GRAPH_TOOLSETS: 'all', CONTEXT_GRAPH_SYNC_EVERY: '0' });
    app = await createApp(config, createLogger('warn'));
    client = await inMemoryClient(app, { name: 'signals-test', actor: 'signals' });
  });
  after(async () => {
    await client.close();
    await app.close();
    await dir.remove();
  });

  async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    return (await client.callTool({ name, arguments: args })) as CallToolResult;
  }
  async function ok(name: string, args: Record<string, unknown>): Promise<any> {
    const r = await call(name, args);
    assert.equal(r.isError, undefined, `${name}: ${JSON.stringify(r.content)}`);
    return r.structuredContent;
  }
  const oscillator = (sync: any, signal: string) => sync.oscillators.find((o: any) => o.signal === signal);

  // Each memory names one made-up codename: the keyword signal finds exactly that memory, the
  // E1 space (GloVe does not know the name) ranks by the other words, so the fused top 5 is the
  // keyword hit followed by E1's neighbours, which the keyword signal never listed.
  const CODENAMES = ['zorblat', 'quintex', 'vardmoor', 'plikstor', 'nembrafe', 'tolquin', 'dravisk', 'mauvren', 'skelpon', 'yarrowix', 'fendrik', 'glaspur'];
  const TOPICS = ['release train', 'billing export', 'search cluster', 'mobile login'];

  test('Kuramoto: spaces are stepped by their agreement with the fused ranking; a drifting one is down-weighted in search until it resynchronises', async () => {
    for (const [i, name] of CODENAMES.entries()) {
      await ok('store', { content: `Project ${name} owns the ${TOPICS[i % 4]} and reports its status every week to the platform group.`, project_id: 'sync' });
    }
    const fresh = await ok('get_kuramoto_sync', {});
    assert.equal(fresh.r, null, 'no phases before any evidence');
    assert.equal(oscillator(fresh, 'E1').status, 'no_evidence');
    assert.equal(oscillator(fresh, 'E1').phase, null);
    assert.equal(fresh.oscillators.length, 13);
    assert.ok(
      fresh.oscillators.some((o: any) => o.status === 'unweighted' && o.phase === null),
      'implemented spaces with weight 0 say so',
    );

    for (let round = 0; round < 2; round++) {
      for (const name of CODENAMES) await ok('search', { query_text: `what does ${name} report`, project_id: 'sync', limit: 5, score_threshold: 0 });
    }
    assert.equal((await ok('get_kuramoto_sync', {})).pending_retrievals, 24);

    // Weak coupling: a space that disagrees cannot be held and drifts. (With E6 and E12 fused
    // too, the fused ranking leans less on any one space, so E1 disagrees less than it did beside
    // BM25 alone: K 0.05 rather than 0.1 lets it drift.)
    const step = await ok('adjust_coupling', { coupling: 0.05, rationale: 'let disagreeing spaces drift for the test' });
    assert.equal(step.status, 'done');
    assert.equal(step.previous_coupling, 0.6);
    assert.equal(step.retrievals_stepped, 24);
    const synced = await ok('get_kuramoto_sync', {});
    assert.equal(synced.coupling, 0.05);
    assert.equal(synced.pending_retrievals, 0);
    // Every fused (weighted) space has evidence, and only those.
    const withPhase = synced.oscillators.filter((o: any) => o.phase !== null);
    assert.deepEqual(
      withPhase.map((o: any) => o.signal).sort(),
      Object.keys(SIGNAL_WEIGHTS)
        .filter((s) => SIGNAL_WEIGHTS[s]! > 0)
        .sort(),
      'only the fused spaces have evidence',
    );
    // Which space agrees least is the data's business; the one that does must pay for it.
    const ordered = [...withPhase].sort((a: any, b: any) => a.agreement - b.agreement);
    const [weak, strong] = [ordered[0], ordered.at(-1)];
    assert.ok(weak.agreement < strong.agreement - 0.05, `${weak.signal} ${weak.agreement} vs ${strong.signal} ${strong.agreement}`);
    assert.equal(strong.status, 'in_sync');
    assert.equal(weak.status, 'out_of_sync', JSON.stringify(weak));
    assert.ok(weak.sync_factor < strong.sync_factor, 'the drifting space is further out of sync');
    assert.ok(weak.weight < SIGNAL_WEIGHTS[weak.signal]!, 'and down-weighted');
    assert.equal(weak.weight, SIGNAL_WEIGHTS[weak.signal]! * weak.sync_factor ** synced.weight_spread);
    const mean = [0, 1].map((k) => withPhase.reduce((sum: number, o: any) => sum + (k ? Math.sin(o.phase) : Math.cos(o.phase)), 0) / withPhase.length);
    assert.ok(Math.abs(synced.r - Math.hypot(mean[0]!, mean[1]!)) < 1e-12, 'r from the real phases');

    // Search fuses with those weights: the same as asking for them explicitly, not the configured ones.
    const query = { text: 'what does tolquin report about the billing export', limit: 5, projectId: 'sync' };
    const used = await app.services.search.hybrid(query);
    const explicit = await app.services.search.hybrid({ ...query, weights: Object.fromEntries(withPhase.map((o: any) => [o.signal, o.weight])) });
    const configured = await app.services.search.hybrid({ ...query, weights: SIGNAL_WEIGHTS });
    const scores = (r: typeof used) => r.hits.map((h) => [h.node.id, h.score.toFixed(6)].join(' '));
    assert.deepEqual(scores(used), scores(explicit));
    assert.notDeepEqual(scores(used), scores(configured), 'the sync weights change the fused scores');

    // Under strong coupling the pacemaker holds every space near it again: the drifting one
    // locks, its coherence recovers over the next retrievals, and it regains weight.
    for (let round = 0; round < 3; round++) {
      for (const topic of TOPICS) await ok('search', { query_text: `${topic} status platform group`, project_id: 'sync', limit: 3, score_threshold: 0 });
    }
    const back = await ok('adjust_coupling', { coupling: 5, rationale: 'strong pull brings the drifting space back' });
    assert.equal(back.retrievals_stepped, 12);
    assert.ok(back.r_after > back.r_before, `r ${back.r_before} → ${back.r_after}`);
    const resynced = oscillator(await ok('get_kuramoto_sync', {}), weak.signal);
    assert.ok(resynced.weight > weak.weight, `resynchronising raises its weight (${weak.weight} → ${resynced.weight})`);

    // Validation: K outside its bounds changes nothing.
    const bad = await call('adjust_coupling', { coupling: 11, rationale: 'out of bounds on purpose' });
    assert.equal(bad.isError, true);
    assert.equal((await ok('get_kuramoto_sync', {})).coupling, 5);
  });

  test('neuromodulation: raising noradrenaline makes search more diverse; serotonin evens out the sync weights; both logged and bounded', async () => {
    const base = 'The staging database is restored from the nightly snapshot every morning at six';
    for (let i = 0; i < 4; i++) await ok('store', { content: `${base}${'!'.repeat(i + 1)} (copy ${i})`, project_id: 'mmr' });
    await ok('store', { content: 'Restores of production data need a ticket approved by the database owner.', project_id: 'mmr' });
    await ok('store', { content: 'Snapshot retention for the staging database is seven days.', project_id: 'mmr' });
    const nearDuplicatePairs = (hits: Array<{ text: string }>) => {
      let n = 0;
      for (let i = 0; i < hits.length; i++) for (let j = i + 1; j < hits.length; j++) if (jaccard(wordSet(hits[i]!.text), wordSet(hits[j]!.text)) > 0.6) n++;
      return n;
    };
    const ask = { query_text: 'how is the staging database restored from the snapshot', project_id: 'mmr', limit: 3, score_threshold: 0 };
    const calm = await ok('search', ask);
    const state = await ok('get_neuromodulation_state', {});
    const ne = state.modulators.find((m: any) => m.modulator === 'noradrenaline');
    assert.equal(ne.level, 0.5);
    assert.equal(ne.effect.value, 1, 'MMR is off at baseline');

    const raised = await ok('adjust_neuromodulator', { modulator: 'noradrenaline', delta: 0.5, rationale: 'results repeat themselves' });
    assert.equal(raised.previous_level, 0.5);
    assert.ok(raised.level > 0.99);
    assert.ok(raised.state.effect.value < 0.25, `λ ${raised.state.effect.value}`);
    const curious = await ok('search', ask);
    assert.equal(calm.hits.length, 3);
    assert.equal(curious.hits.length, 3);
    assert.ok(nearDuplicatePairs(curious.hits) < nearDuplicatePairs(calm.hits), `near-duplicate pairs ${nearDuplicatePairs(calm.hits)} → ${nearDuplicatePairs(curious.hits)}`);
    assert.equal(curious.hits[0].id, calm.hits[0].id, 'the best hit stays first');

    // Back to baseline: the same search is the relevance order again.
    await ok('adjust_neuromodulator', { modulator: 'noradrenaline', delta: -0.5, rationale: 'done exploring for now' });
    assert.deepEqual(
      (await ok('search', ask)).hits.map((h: any) => h.id),
      calm.hits.map((h: any) => h.id),
    );

    // Serotonin above baseline flattens the spread: the down-weighted space regains weight.
    const sync = await ok('get_kuramoto_sync', {});
    const [weak] = sync.oscillators.filter((o: any) => o.phase !== null).sort((a: any, b: any) => a.sync_factor - b.sync_factor);
    assert.ok(weak.sync_factor < 1);
    const sero = await ok('adjust_neuromodulator', { modulator: 'serotonin', delta: 0.4, rationale: 'trust every space as configured' });
    assert.ok(sero.state.effect.value < 1);
    const afterSero = await ok('get_kuramoto_sync', {});
    assert.ok(afterSero.weight_spread < sync.weight_spread);
    assert.ok(oscillator(afterSero, weak.signal).weight > weak.weight, 'a flatter spread gives the less synchronised space more weight');
    await ok('adjust_neuromodulator', { modulator: 'serotonin', delta: -0.4, rationale: 'back to the usual spread' });

    const bad = await call('adjust_neuromodulator', { modulator: 'adrenaline', delta: 0.1, rationale: 'not a modulator we have' });
    assert.equal(bad.isError, true);
    assert.match(JSON.stringify(bad.content), /dopamine.*serotonin.*noradrenaline.*acetylcholine/);
    assert.equal((await call('adjust_neuromodulator', { modulator: 'dopamine', delta: 0.9, rationale: 'beyond the bound' })).isError, true);
    const one = await ok('get_neuromodulation', { modulator: 'dopamine' });
    assert.equal(one.modulator.level, 0.5, 'a refused adjustment changed nothing');
  });

  test('calibration: relevance feedback moves the search score threshold, ECE drops, and dopamine rewards it', async () => {
    const shown: Array<{ id: string; score: number }> = [];
    for (const name of CODENAMES.slice(0, 5)) {
      const r = await ok('search', { query_text: `what does ${name} report`, project_id: 'sync', limit: 5, score_threshold: 0 });
      assert.equal(r.hits.length, 5);
      // Only the memory naming the project answers the question.
      await ok('record_feedback', { node_ids: [r.hits[0].id], relevant: true });
      const rest = await ok('record_feedback', { node_ids: r.hits.slice(1).map((h: any) => h.id), relevant: false });
      assert.ok(
        rest.outcomes.every((o: any) => o.retrieval_id !== null && o.score !== null),
        'linked to the retrieval that showed them',
      );
      shown.push(...r.hits.map((h: any) => ({ id: h.id, score: h.score })));
    }
    const metrics = await ok('get_calibration_metrics', {});
    assert.equal(metrics.observations, 25);
    assert.equal(metrics.relevant, 5);
    assert.deepEqual(metrics.raw, { ece: metrics.calibrated.ece, mce: metrics.calibrated.mce, brier: metrics.calibrated.brier }, 'identity map before a recalibration');
    const status = (await ok('get_threshold_status', {})).thresholds.find((t: any) => t.name === 'score_threshold');
    assert.equal(status.value, 0.25);
    assert.equal(status.calibrated, false);

    const da = await ok('get_neuromodulation', { modulator: 'dopamine' });
    // 5 relevant (+0.05) and 20 irrelevant (−0.02) within minutes: a net penalty of about 0.15.
    assert.ok(da.modulator.level < 0.4 && da.modulator.level > 0.3, `dopamine ${da.modulator.level}`);
    assert.ok(da.modulator.effect.value < 1, 'sync follows new evidence more slowly');

    const r = await ok('trigger_recalibration', { rationale: 'feedback on five codename questions' });
    assert.equal(r.status, 'recalibrated');
    assert.equal(r.observations, 25);
    assert.ok(r.after.ece < r.before.ece, `ECE ${r.before.ece} → ${r.after.ece}`);
    assert.ok(r.after.brier < r.before.brier);
    assert.equal(r.rate, 0.5, 'acetylcholine at baseline: half way');
    assert.ok(Math.abs(r.threshold_after - (0.25 + 0.5 * (r.fitted_threshold - 0.25))) < 1e-9);
    assert.ok(r.threshold_after > 0.25, `threshold 0.25 → ${r.threshold_after}`);
    const after = await ok('get_calibration_metrics', {});
    assert.ok(after.calibrated.ece < after.raw.ece);
    assert.equal(after.score_threshold, r.threshold_after);

    // search without a threshold now uses the calibrated one, and drops what it calls irrelevant.
    const plain = await ok('search', { query_text: 'what does zorblat report', project_id: 'sync', limit: 5 });
    assert.equal(plain.score_threshold, r.threshold_after);
    // Acetylcholine sets how far a recalibration moves: at its top the threshold reaches the fit.
    await ok('adjust_neuromodulator', { modulator: 'acetylcholine', delta: 0.5, rationale: 'learn from feedback at full rate' });
    const fast = await ok('trigger_recalibration', {});
    assert.ok(fast.rate > 0.99);
    assert.ok(Math.abs(fast.threshold_after - fast.fitted_threshold) < 0.01);
    // The fit puts the threshold between the scores of the hits marked relevant and the rest.
    const relevantScores = shown.filter((_, i) => i % 5 === 0).map((x) => x.score);
    const otherScores = shown.filter((_, i) => i % 5 !== 0).map((x) => x.score);
    assert.ok(fast.threshold_after > Math.max(...otherScores) - 0.05 && fast.threshold_after < Math.min(...relevantScores), `${fast.threshold_after}`);
    const strict = await ok('search', { query_text: 'what does zorblat report', project_id: 'sync', limit: 5 });
    assert.equal(strict.score_threshold, fast.threshold_after);
    assert.ok(strict.hits.length < plain.hits.length, `${plain.hits.length} → ${strict.hits.length} hits`);
    assert.ok(strict.hits.every((h: any) => h.score >= fast.threshold_after));
  });

  test('steering: hydrating counts as a reward, and the feedback and every change it caused are listed', async () => {
    const before = (await ok('get_neuromodulation', { modulator: 'dopamine' })).modulator.level;
    const r = await ok('search', { query_text: 'what does quintex report', project_id: 'sync', limit: 2, score_threshold: 0 });
    await ok('hydrate_citation', { citation_tag: r.context.match(/\[node_[0-9a-f]{32}\]/)[0] });
    const after = (await ok('get_neuromodulation', { modulator: 'dopamine' })).modulator.level;
    assert.ok(after > before, `dopamine ${before} → ${after}`);

    const s = await ok('get_steering_feedback', { limit: 200 });
    assert.equal(s.feedback.relevant, 5);
    assert.equal(s.feedback.irrelevant, 20);
    assert.equal(s.feedback.hydrated, 1);
    assert.equal(s.feedback.precision, 0.2);
    assert.ok(s.reward < 0);
    const targets = new Set(s.changes.map((c: any) => `${c.subsystem}/${c.target}/${c.source}`));
    for (const t of [
      'sync/coupling/manual',
      'sync/weight:E1/sync_step',
      'sync/weight:lexical/sync_step',
      'neuromodulation/noradrenaline/manual',
      'calibration/score_threshold/recalibration',
    ])
      assert.ok(targets.has(t), t);
    const coupling = s.changes.find((c: any) => c.target === 'coupling' && c.after === 0.05);
    assert.equal(coupling.before, 0.6);
    assert.equal(coupling.rationale, 'let disagreeing spaces drift for the test');
    assert.equal(s.state.score_threshold, (await ok('get_threshold_status', {})).thresholds[0].value);
  });
});
