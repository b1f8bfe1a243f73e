import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import postgres from 'postgres';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { tempDir } from '../helpers/cli.js';
import { inMemoryClient } from '../helpers/in-memory.js';

// Every signal change is a logged transaction naming its reason, and `undo` (the core tool)
// reverts it: the number and what it changed in search return to what they were, in this
// process's cache too (the app's search is asked directly after each undo).
describe('signals: adjustments, feedback and recalibration are undone through the transaction log', () => {
  let app: App;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let client: Client;

  before(async () => {
    dir = await tempDir();
    const config = loadConfig({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_AUTO_EDGES: 'off', CONTEXT_GRAPH_TOOLSETS: 'all', CONTEXT_GRAPH_SYNC_EVERY: '0' });
    app = await createApp(config, createLogger('warn'));
    client = await inMemoryClient(app, { name: 'signals-undo', actor: 'signals-undo' });
  });
  after(async () => {
    await client.close();
    await app.close();
    await dir.remove();
  });

  async function ok(name: string, args: Record<string, unknown>): Promise<any> {
    const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
    assert.equal(r.isError, undefined, `${name}: ${JSON.stringify(r.content)}`);
    return r.structuredContent;
  }
  const level = async (modulator: string) => (await ok('get_neuromodulation', { modulator })).modulator.level as number;
  const newest = async () => (await ok('history', { limit: 1 })).items[0];
  const ids = (r: any) => r.hits.map((h: any) => h.id);

  test('adjust_neuromodulator and record_feedback: undo takes their impulses back, and search is as before', async () => {
    const base = 'The staging database is restored from the nightly snapshot every morning at six';
    for (let i = 0; i < 4; i++) await ok('store', { content: `${base}${'!'.repeat(i + 1)} (copy ${i})`, project_id: 'mmr' });
    await ok('store', { content: 'Restores of production data need a ticket approved by the database owner.', project_id: 'mmr' });
    await ok('store', { content: 'Snapshot retention for the staging database is seven days.', project_id: 'mmr' });
    const ask = { query_text: 'how is the staging database restored from the snapshot', project_id: 'mmr', limit: 3, score_threshold: 0 };
    const calm = await ok('search', ask);

    await ok('adjust_neuromodulator', { modulator: 'noradrenaline', delta: 0.5, rationale: 'results repeat themselves' });
    const tx = await newest();
    assert.equal(tx.op, 'adjust_neuromodulator');
    assert.equal(tx.rationale, 'results repeat themselves');
    assert.notDeepEqual(ids(await ok('search', ask)), ids(calm), 'exploration reorders the results');
    const undone = await ok('undo', {});
    assert.deepEqual(undone.reverted_tx_ids, [tx.tx_id]);
    assert.equal(undone.entities[0].entity, 'signal');
    assert.equal(undone.entities[0].change_type, 'delete');
    assert.equal(await level('noradrenaline'), 0.5);
    assert.deepEqual(ids(await ok('search', ask)), ids(calm), 'the relevance order again');
    assert.ok(!(await ok('get_steering_feedback', {})).changes.some((c: any) => c.target === 'noradrenaline'), 'the adjustment is no longer in effect');

    // Feedback: irrelevant verdicts lower dopamine and raise noradrenaline; undo takes both back.
    await ok('record_feedback', { node_ids: calm.hits.map((h: any) => h.id), relevant: false });
    assert.equal((await newest()).op, 'record_feedback');
    assert.ok((await level('dopamine')) < 0.5 && (await level('noradrenaline')) > 0.5);
    assert.equal((await ok('get_steering_feedback', {})).feedback.irrelevant, 3);
    await ok('undo', {});
    assert.equal(await level('dopamine'), 0.5);
    assert.equal(await level('noradrenaline'), 0.5);
    assert.equal((await ok('get_steering_feedback', {})).feedback.irrelevant, 0);
    assert.equal((await ok('get_calibration_metrics', {})).observations, 0);
    // Redo re-applies it, with its original timestamps (so the same decayed level).
    await ok('undo', { redo: true });
    assert.equal((await ok('get_steering_feedback', {})).feedback.irrelevant, 3);
    assert.ok((await level('dopamine')) < 0.5);
    await ok('undo', {});
    assert.equal(await level('dopamine'), 0.5);
  });

  const CODENAMES = ['zorblat', 'quintex', 'vardmoor', 'plikstor', 'nembrafe', 'tolquin', 'dravisk', 'mauvren', 'skelpon', 'yarrowix', 'fendrik', 'glaspur'];
  const TOPICS = ['release train', 'billing export', 'search cluster', 'mobile login'];

  test('adjust_coupling and trigger_recalibration: undo restores the fusion weights and the score threshold search uses', async () => {
    for (const [i, name] of CODENAMES.entries()) {
      await ok('store', { content: `Project ${name} owns the ${TOPICS[i % 4]} and reports its status every week to the platform group.`, project_id: 'sync' });
    }
    for (let round = 0; round < 2; round++) {
      for (const name of CODENAMES) await ok('search', { query_text: `what does ${name} report`, project_id: 'sync', limit: 5, score_threshold: 0 });
    }
    const query = { text: 'what does tolquin report about the billing export', limit: 5, projectId: 'sync' };
    const scores = async () => (await app.services.search.hybrid(query)).hits.map((h) => `${h.node.id} ${h.score.toFixed(6)}`);
    const configured = await scores();
    const fresh = await ok('get_kuramoto_sync', {});

    const step = await ok('adjust_coupling', { coupling: 0.1, rationale: 'let disagreeing spaces drift for the test' });
    assert.equal(step.retrievals_stepped, fresh.pending_retrievals);
    const tx = await newest();
    assert.equal(tx.op, 'adjust_coupling');
    assert.equal(tx.rationale, 'let disagreeing spaces drift for the test');
    assert.notDeepEqual(await scores(), configured, 'a space out of sync is down-weighted');

    const undone = await ok('undo', {});
    assert.deepEqual(undone.reverted_tx_ids, [tx.tx_id]);
    assert.ok(undone.entities.some((e: any) => e.entity_id === 'state:kuramoto' && e.change_type === 'update'));
    const back = await ok('get_kuramoto_sync', {});
    assert.equal(back.coupling, 0.6);
    assert.equal(back.pending_retrievals, fresh.pending_retrievals, 'the retrievals wait for the next step again');
    assert.deepEqual(
      back.oscillators.map((o: any) => [o.signal, o.weight, o.phase]),
      fresh.oscillators.map((o: any) => [o.signal, o.weight, o.phase]),
    );
    assert.deepEqual(await scores(), configured, 'search fuses with the configured weights again');
    assert.ok(!(await ok('get_steering_feedback', { limit: 200 })).changes.some((c: any) => c.subsystem === 'sync'));

    // A later change of the same state still in effect: undo of the earlier one is refused and changes nothing.
    await ok('adjust_coupling', { coupling: 0.1, rationale: 'let disagreeing spaces drift again' });
    const first = await newest();
    await ok('adjust_coupling', { coupling: 2, rationale: 'a later change of the same state' });
    const second = await newest();
    const refused = (await client.callTool({ name: 'undo', arguments: { tx_id: first.tx_id } })) as CallToolResult;
    assert.equal(refused.isError, true);
    assert.match(JSON.stringify(refused.content), new RegExp(`CONFLICT.*transaction ${second.tx_id}`));
    assert.equal((await ok('get_kuramoto_sync', {})).coupling, 2);
    const both = await ok('undo', { steps: 2 });
    assert.deepEqual(both.reverted_tx_ids, [first.tx_id, second.tx_id]);
    assert.equal((await ok('get_kuramoto_sync', {})).coupling, 0.6);
    assert.deepEqual(await scores(), configured);

    // Feedback on five questions, then a recalibration that moves the default score threshold.
    for (const name of CODENAMES.slice(0, 5)) {
      const r = await ok('search', { query_text: `what does ${name} report`, project_id: 'sync', limit: 5, score_threshold: 0 });
      await ok('record_feedback', { node_ids: [r.hits[0].id], relevant: true });
      await ok('record_feedback', { node_ids: r.hits.slice(1).map((h: any) => h.id), relevant: false });
    }
    const plain = { query_text: 'what does zorblat report', project_id: 'sync', limit: 5 };
    const uncalibrated = await ok('search', plain);
    assert.equal(uncalibrated.score_threshold, 0.25);
    const r = await ok('trigger_recalibration', { rationale: 'feedback on five codename questions' });
    assert.equal(r.status, 'recalibrated');
    assert.ok(r.threshold_after > 0.25);
    assert.equal((await ok('search', plain)).score_threshold, r.threshold_after);
    const recal = await newest();
    assert.equal(recal.op, 'recalibration');
    assert.equal(recal.rationale, 'feedback on five codename questions');

    await ok('undo', {});
    const after = await ok('search', plain);
    assert.equal(after.score_threshold, 0.25, 'search uses the previous threshold at once');
    assert.deepEqual(ids(after), ids(uncalibrated));
    const metrics = await ok('get_calibration_metrics', {});
    assert.deepEqual(metrics.map, { a: 1, b: 0 });
    assert.equal(metrics.recalibrated_at, null);
    assert.equal(metrics.observations, 25, 'the feedback itself stays until it is undone too');
  });
});

// Two front ends on one Postgres database: the one that undoes announces it on cg_signals, and
// the other's cached levels (what its searches read) follow without a restart.
describe('signals undo across front ends (Postgres)', { skip: process.env.DATABASE_URL ? false : 'DATABASE_URL not set' }, () => {
  const apps: App[] = [];
  const dirs: Array<Awaited<ReturnType<typeof tempDir>>> = [];
  let admin: ReturnType<typeof postgres>;
  let dbName: string;
  let client: Client;

  before(async () => {
    dbName = `cg_signals_undo_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    admin = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${dbName}`);
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${dbName}`;
    for (let i = 0; i < 2; i++) {
      const dir = await tempDir();
      dirs.push(dir);
      const env = { CONTEXT_GRAPH_DATA_DIR: dir.path, DATABASE_URL: url.toString(), CONTEXT_GRAPH_AUTO_EDGES: 'off', CONTEXT_GRAPH_TOOLSETS: 'all', CONTEXT_GRAPH_SYNC_EVERY: '0' };
      apps.push(await createApp(loadConfig(env), createLogger('warn')));
    }
    client = await inMemoryClient(apps[0]!, { name: 'signals-undo-a', actor: 'front-a' });
  });
  after(async () => {
    await client?.close();
    for (const app of apps) await app.close();
    for (const dir of dirs) await dir.remove();
    await admin?.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin?.end();
  });

  async function until(what: string, check: () => boolean): Promise<void> {
    for (let i = 0; i < 200 && !check(); i++) await sleep(50);
    assert.ok(check(), what);
  }

  test('an adjustment and its undo reach the other front end', async () => {
    const other = apps[1]!.services.signals;
    assert.equal(other.levels(Date.now()).noradrenaline, 0.5);
    const r = (await client.callTool({
      name: 'adjust_neuromodulator',
      arguments: { modulator: 'noradrenaline', delta: 0.5, rationale: 'explore on every front end' },
    })) as CallToolResult;
    assert.equal(r.isError, undefined, JSON.stringify(r.content));
    await until('the other front end sees the raised level', () => other.levels(Date.now()).noradrenaline > 0.99);
    assert.ok(other.diversity(Date.now()) < 0.25, 'and its searches diversify');
    const u = (await client.callTool({ name: 'undo', arguments: {} })) as CallToolResult;
    assert.equal(u.isError, undefined, JSON.stringify(u.content));
    await until('the other front end sees the undo', () => other.levels(Date.now()).noradrenaline === 0.5);
    assert.equal(other.diversity(Date.now()), 1);
  });
});
