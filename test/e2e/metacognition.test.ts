import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, CreateMessageRequest } from '@modelcontextprotocol/sdk/types.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { tempDir, toolError } from '../helpers/cli.js';
import { inMemoryClient } from '../helpers/in-memory.js';

// The meta-cognitive tools (seed 001 §3.4, §6.4, §6.5) through the SDK client over the app's own
// MCP server, in process: the test owns the logger (its ring is what get_system_logs reads) and
// can be a client that answers sampling/createMessage.
describe('meta-cognitive tools: plans, critiques, instructions, logs, questions, Johari', () => {
  let app: App;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  const clients: Client[] = [];
  let writer: Client;

  before(async () => {
    dir = await tempDir();
    app = await createApp(loadConfig({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_TOOLSETS: 'all', CONTEXT_GRAPH_AUTO_EDGES: 'off' }), createLogger('warn'));
    writer = await connect('writer');
  });
  after(async () => {
    for (const c of clients) await c.close();
    await app.close();
    await dir.remove();
  });

  async function connect(actor: string, sampling?: (req: CreateMessageRequest) => string): Promise<Client> {
    const client = await inMemoryClient(app, { name: 'metacog-test', actor, sampling });
    clients.push(client);
    return client;
  }
  async function raw(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    return (await client.callTool({ name, arguments: args })) as CallToolResult;
  }
  async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
    const r = await raw(client, name, args);
    assert.equal(r.isError, undefined, `${name}: ${JSON.stringify(r.content)}`);
    return r.structuredContent;
  }
  async function store(content: string, extra: Record<string, unknown> = {}, client = writer): Promise<string> {
    return (await ok(client, 'store', { content, ...extra })).id as string;
  }
  /** Waits until the fingerprint job has run for every id (it follows the embed job). */
  async function fingerprinted(ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      for (let i = 0; ; i++) {
        if ((await ok(writer, 'compute_teleological_vector', { id })).status === 'ready') break;
        assert.ok(i < 400, `no fingerprint for ${id}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    }
  }

  const unrelated = [
    'Our cat Whiskers sleeps on the radiator in winter.',
    'The tomato seedlings need repotting in March.',
    'Grandma knits wool scarves for every birthday.',
    'The bicycle chain squeaks after rain.',
    'Jupiter has dozens of known moons.',
    'Sourdough starter must be fed daily.',
    'The violin recital is in the old chapel.',
    'Volcanic soil is rich in minerals.',
  ];
  const cluster = [
    'The billing service deploys every Friday afternoon.',
    'Every Friday afternoon the billing service is deployed.',
    'Billing service deployments happen on Friday afternoons.',
    'We deploy the billing service on Friday afternoon each week.',
    'The weekly billing service deploy is on Friday afternoon.',
    'Deploys of the billing service run each Friday afternoon.',
    'On Friday afternoons the billing service gets deployed.',
    'The billing service is deployed every Friday in the afternoon.',
  ];
  const clusterIds: string[] = [];
  const unrelatedIds: string[] = [];

  test('the seven tools are listed in the metacognitive toolset with "When to use" and two examples', async () => {
    const { tools } = await writer.listTools();
    for (const name of [
      'reflect_on_memory',
      'generate_search_plan',
      'critique_context',
      'get_system_instructions',
      'get_system_logs',
      'epistemic_action',
      'get_johari_classification',
    ]) {
      const t = tools.find((x) => x.name === name);
      assert.ok(t, `${name} listed`);
      assert.equal(t._meta?.['context-graph/toolset'], 'metacognitive');
      assert.match(t.description!, /When to use:/);
      assert.match(t.description!, /Example: \{/);
      assert.match(t.description!, /Advanced: \{/);
    }
  });

  test('epistemic_action with fewer than 10 memories asks about the domain and goals, with no focal nodes (EC-MCP-003)', async () => {
    const empty = await ok(writer, 'epistemic_action', {});
    assert.equal(empty.action_type, 'ask_user');
    assert.deepEqual(empty.focal_nodes, []);
    assert.match(empty.question, /domain/);
    assert.equal(empty.expected_entropy_reduction, 1, 'nothing stored: the answer resolves everything');
    assert.equal(empty.method, 'template');
    const id = await store('The team standup is at 09:30 every weekday.', { project_id: 'few', topic: 'standup' });
    await fingerprinted([id]);
    const one = await ok(writer, 'epistemic_action', {});
    assert.deepEqual(one.focal_nodes, []);
    assert.match(one.question, /1 memory about standup/);
    // With no focus, the answer can resolve the store's whole incoherence: 1 − its mean ΔC.
    assert.equal(one.judged.memories, 1);
    assert.ok(Math.abs(one.expected_entropy_reduction - (1 - one.coherence_before)) < 1e-3, JSON.stringify(one));
  });

  test('epistemic_action asks about the least coherent memories when coherence is low, and not when it is high (TC-META-001)', async () => {
    for (const u of unrelated) unrelatedIds.push(await store(u, { project_id: 'mixed' }));
    for (const c of cluster) clusterIds.push(await store(c, { project_id: 'mixed' }));
    await fingerprinted([...unrelatedIds, ...clusterIds]);
    // The writer's session touched everything it stored: mostly unrelated memories.
    const low = await ok(writer, 'epistemic_action', {});
    assert.equal(low.action_type, 'ask_user', JSON.stringify(low));
    assert.ok(low.coherence_before < 0.4, `coherence ${low.coherence_before}`);
    assert.equal(low.judged.source, 'session');
    assert.equal(low.focal_nodes.length, 3);
    const focal = low.focal_nodes.map((f: any) => f.coherence);
    assert.deepEqual(
      focal,
      [...focal].sort((a: number, b: number) => a - b),
      'least coherent first',
    );
    assert.ok(
      focal.every((c: number) => c <= low.coherence_before),
      'focal memories are below the session mean',
    );
    assert.ok(low.question.includes('"'), 'the question quotes the focal memories');
    for (const f of low.focal_nodes) assert.match(f.citation, /^\[node_[0-9a-f]{32}\]$/);
    assert.ok(low.expected_entropy_reduction > 0 && low.expected_entropy_reduction < 1);
    assert.ok(low.suggested_follow_up);
    // A session that only read the tight cluster of paraphrases is coherent: no question.
    const reader = await connect('reader');
    await ok(reader, 'search', { query_text: 'billing service Friday afternoon deploy', project_id: 'mixed', limit: 8 });
    const high = await ok(reader, 'epistemic_action', {});
    assert.equal(high.judged.source, 'session');
    assert.ok(high.coherence_before > low.coherence_before, `${high.coherence_before} > ${low.coherence_before}`);
    assert.equal(high.action_type, 'none', JSON.stringify(high));
    assert.equal(high.question, null);
  });

  test("epistemic_action force=true always asks, worded by the client's model when it offers sampling (TC-META-002)", async () => {
    const reader = await connect('forced-reader');
    await ok(reader, 'search', { query_text: 'billing service Friday afternoon deploy', project_id: 'mixed', limit: 8 });
    const forced = await ok(reader, 'epistemic_action', { force: true });
    assert.equal(forced.action_type, 'ask_user');
    assert.equal(forced.reason, 'forced');
    assert.equal(forced.method, 'template');
    assert.equal(forced.focal_nodes.length, 3);
    assert.ok(
      forced.focal_nodes.every((f: any) => clusterIds.includes(f.id)),
      'focal nodes come from what the session read',
    );
    const prompts: string[] = [];
    const sampler = await connect('sampler', (req) => {
      const c = req.params.messages[0]!.content;
      const block = Array.isArray(c) ? c[0] : c;
      prompts.push(block && block.type === 'text' ? block.text : '');
      return 'Is the billing deploy still on Friday afternoons?';
    });
    const sampled = await ok(sampler, 'epistemic_action', { force: true, session_id: 'forced-reader' });
    assert.equal(sampled.method, 'sampling');
    assert.equal(sampled.model, 'test-model-1');
    assert.equal(sampled.question, 'Is the billing deploy still on Friday afternoons?');
    assert.ok(prompts[0]!.includes('billing service'), 'the prompt carries the focal memories');
    assert.equal(toolError(await raw(writer, 'epistemic_action', { force: 'yes' }))?.code, 'INVALID_PARAMS');
  });

  test("generate_search_plan answers 3 queries for different spaces, built from each store's vocabulary (TC-META-003)", async () => {
    await store('The checkout outage happened because the database ran out of connections.', { project_id: 'shop' });
    await store('Checkout latency doubled after the 2026-11-02 release of cartService.addItem.', { project_id: 'shop' });
    await store('Priya owns the checkout service and the Stripe integration.', { project_id: 'shop' });
    await store('The checkout page lets hikers book the Alpine hut for the weekend.', { project_id: 'trail' });
    await store('Checkout of rental boots closes at dusk at the Glacier lodge.', { project_id: 'trail' });
    const shop = await ok(writer, 'generate_search_plan', { goal: 'why does checkout break', project_id: 'shop' });
    assert.equal(shop.queries.length, 3);
    assert.equal(new Set(shop.queries.map((q: any) => q.target_space)).size, 3, 'three different spaces');
    assert.ok(shop.related_memories >= 3);
    const causal = shop.queries.find((q: any) => q.target_space === 'causal');
    assert.ok(causal, JSON.stringify(shop.queries));
    assert.match(causal.why, /state a cause/);
    for (const q of shop.queries) assert.ok(q.query.length > 0 && q.why.length > 0 && q.space_ids.length > 0);
    const trail = await ok(writer, 'generate_search_plan', { goal: 'why does checkout break', project_id: 'trail' });
    assert.notDeepEqual(
      trail.queries.map((q: any) => q.query),
      shop.queries.map((q: any) => q.query),
      'another store, other words',
    );
    assert.ok(JSON.stringify(trail.queries).match(/hut|boots|lodge|glacier|alpine/i), JSON.stringify(trail.queries));
    const focused = await ok(writer, 'generate_search_plan', { goal: 'why does checkout break', project_id: 'shop', focus_spaces: ['temporal', 'code'] });
    assert.deepEqual(
      focused.queries.slice(0, 2).map((q: any) => q.target_space),
      ['temporal', 'code'],
    );
    assert.match(focused.queries[0].query, /2026-11-02/);
    assert.match(focused.queries[1].query, /cartservice\.additem/i);
    assert.equal(toolError(await raw(writer, 'generate_search_plan', { goal: 'short' }))?.code, 'INVALID_PARAMS');
    assert.equal(toolError(await raw(writer, 'generate_search_plan', { goal: 'why does checkout break', focus_spaces: ['astral'] }))?.code, 'INVALID_PARAMS');
  });

  test('critique_context finds a planted contradiction and not a consistent pair (TC-META-004)', async () => {
    const p = { project_id: 'critique' };
    const port1 = await store('The staging database listens on port 5432.', p);
    const consistentA = await store('The billing service is written in Go.', p);
    const freezeOn = await store('The deploy freeze is in effect this week.', { ...p, topic: 'deploy freeze' });
    const consistentB = await store('The billing service Go code lives in the payments repository.', p);
    const port2 = await store('The staging database listens on port 6543.', p);
    const freezeOff = await store('The deploy freeze is not in effect this week.', { ...p, topic: 'deploy freeze' });
    const dup = await store('Backups run nightly at 02:00 UTC.', p);
    const dup2 = await store('Backups run nightly at 02:00 UTC.', p);
    const unsure = await store('The CFO might prefer quarterly reports.', { ...p, confidence: 0.2 });
    const old = await store('The office wifi password rotates monthly.', p);
    const fresh = (await ok(writer, 'update', { id: old, content: 'The office wifi password rotates weekly.', supersedes: true, rationale: 'IT changed the policy' })).id;
    await fingerprinted([port1, port2]);
    const r = await ok(writer, 'critique_context', { context_window: 20, check_types: ['conflicts', 'duplicates', 'outdated', 'low_confidence'], project_id: 'critique' });
    const has = (check: string, a: string, b?: string) =>
      r.findings.some((f: any) => f.check === check && f.nodes.some((n: any) => n.id === a) && (!b || f.nodes.some((n: any) => n.id === b)));
    assert.ok(has('conflicts', port1, port2), JSON.stringify(r.findings));
    assert.ok(r.findings.find((f: any) => f.check === 'conflicts' && f.nodes.some((n: any) => n.id === port1)).detail.includes('5432'));
    assert.ok(has('conflicts', freezeOn, freezeOff), 'negation');
    assert.ok(!has('conflicts', consistentA, consistentB), 'a consistent pair is not a conflict');
    assert.ok(has('conflicts', old, fresh), 'superseded pair');
    assert.ok(has('duplicates', dup, dup2), 'exact duplicate');
    assert.ok(has('outdated', old), 'superseded is outdated');
    assert.ok(has('low_confidence', unsure));
    assert.ok(!has('low_confidence', port1));
    assert.ok(r.counts.conflicts >= 3 && r.pairs_compared > 0);
    // The default checks are conflicts and duplicates; a window of 1 holds only the newest memory.
    const small = await ok(writer, 'critique_context', { context_window: 1, project_id: 'critique' });
    assert.equal(small.window.length, 1);
    assert.deepEqual(small.checked, ['conflicts', 'duplicates']);
    assert.equal(toolError(await raw(writer, 'critique_context', { context_window: 51 }))?.code, 'INVALID_PARAMS');
    assert.equal(toolError(await raw(writer, 'critique_context', { context_window: 0 }))?.code, 'INVALID_PARAMS');
    assert.equal(toolError(await raw(writer, 'critique_context', { check_types: ['vibes'] }))?.code, 'INVALID_PARAMS');
  });

  test('reflect_on_memory returns a tool sequence from the live registry that changes when duplicates and tombstones exist (TC-META-007)', async () => {
    const p = { project_id: 'reflect' };
    await store('The VPN endpoint for the Berlin office is vpn-berlin.example.org.', p);
    await store('Kafka consumers for invoices retry three times before parking a message.', p);
    const goal = 'tidy up what we know about invoices and the VPN';
    const plain = await ok(writer, 'reflect_on_memory', { goal, project_id: 'reflect' });
    const { tools } = await writer.listTools();
    const names = new Set(tools.map((t) => t.name));
    assert.ok(plain.steps.length >= 2);
    assert.deepEqual(
      plain.steps.map((s: any) => s.order),
      plain.steps.map((_: any, i: number) => i + 1),
    );
    for (const s of plain.steps) assert.ok(names.has(s.tool), `${s.tool} is a live tool`);
    assert.equal(plain.steps[0].tool, 'search');
    assert.ok(!plain.steps.some((s: any) => s.tool === 'merge_concepts'), 'no duplicates, no merge');
    assert.ok(
      plain.steps.some((s: any) => s.tool === 'build_edges'),
      'no edges yet',
    );

    const a = await store('Invoices are emailed on the first business day of the month.', p);
    const b = await store('Invoices are emailed on the first business day of the month.', p);
    const vpnOld = await store('The old VPN endpoint was vpn1.example.org.', p);
    const forgotten = await ok(writer, 'forget_concept', { node_id: vpnOld, reason: 'obsolete', rationale: 'the VPN endpoint moved' });
    const after = await ok(writer, 'reflect_on_memory', { goal, project_id: 'reflect' });
    const merge = after.steps.find((s: any) => s.tool === 'merge_concepts');
    assert.ok(merge, JSON.stringify(after.steps));
    assert.deepEqual(merge.args.source_node_ids, [a, b]);
    assert.equal(merge.phase, 'repair');
    const restore = after.steps.find((s: any) => s.tool === 'restore_from_hash');
    assert.equal(restore?.args.reversal_hash, forgotten.reversal_hash);
    assert.equal(after.store_state.duplicate_groups, 1);
    assert.equal(after.store_state.matching_tombstones, 1);
    // The plan follows the session's toolsets: a step whose toolset is off says so.
    await ok(writer, 'toolsets', { disable: ['curation'] });
    try {
      const off = await ok(writer, 'reflect_on_memory', { goal, project_id: 'reflect' });
      assert.equal(off.steps.find((s: any) => s.tool === 'merge_concepts').enabled, false);
    } finally {
      await ok(writer, 'toolsets', { enable: ['curation'] });
    }
    assert.equal(toolError(await raw(writer, 'reflect_on_memory', { goal: 'too short' }))?.code, 'INVALID_PARAMS');
    assert.equal(toolError(await raw(writer, 'reflect_on_memory', {}))?.code, 'INVALID_PARAMS');
  });

  test("get_system_instructions names the live tools and follows the session's toolsets", async () => {
    const all = await ok(writer, 'get_system_instructions', {});
    assert.ok(all.token_estimate > 150 && all.token_estimate <= 330, `${all.token_estimate} tokens`);
    assert.match(all.text, /\[node_[0-9a-f]{32}\]/);
    for (const name of ['store', 'search', 'relate', 'merge_concepts', 'hydrate_citation']) assert.ok(all.text.includes(`\`${name}\``), name);
    const { tools } = await writer.listTools();
    const listed = new Set(tools.map((t) => t.name));
    for (const name of all.tools_named) assert.ok(listed.has(name), `${name} is listed`);
    await ok(writer, 'toolsets', { disable: ['graph', 'curation'] });
    try {
      const fewer = await ok(writer, 'get_system_instructions', {});
      assert.ok(!fewer.text.includes('`relate`') && !fewer.text.includes('`merge_concepts`'), fewer.text);
      assert.match(fewer.text, /Off \(switch on with[^\n]*graph/);
      assert.notEqual(fewer.text, all.text);
    } finally {
      await ok(writer, 'toolsets', { enable: ['graph', 'curation'] });
    }
    assert.equal((await ok(writer, 'get_system_instructions', {})).text.includes('`relate`'), true);
  });

  test('get_system_logs returns the line an action produced, filtered by level, component and limit, without secrets', async () => {
    const id = await store('The release train leaves every other Tuesday.', { project_id: 'logs' });
    const storage = await ok(writer, 'get_system_logs', { component: 'storage', limit: 5 });
    assert.ok(storage.ring.enabled);
    const line = storage.entries.find((e: any) => e.fields.id === id);
    assert.ok(line, JSON.stringify(storage.entries));
    assert.equal(line.msg, 'memory stored');
    assert.equal(line.level, 'info');
    assert.ok(storage.entries.every((e: any) => e.component === 'storage'));
    await ok(writer, 'search', { query_text: 'release train postgres://admin:hunter2@db.internal/prod Bearer abcdefghijklmnop' });
    const info = await ok(writer, 'get_system_logs', { component: 'retrieval', level: 'info', limit: 1000 });
    assert.ok(!info.entries.some((e: any) => e.msg === 'search ran'), 'searches log at debug');
    const debug = await ok(writer, 'get_system_logs', { component: 'retrieval', level: 'debug', limit: 1 });
    assert.equal(debug.entries.length, 1);
    assert.equal(debug.entries[0].msg, 'search ran');
    const text = JSON.stringify(debug.entries[0]);
    assert.match(text, /release train/);
    assert.ok(!text.includes('hunter2') && !text.includes('abcdefghijklmnop'), text);
    const curated = await ok(writer, 'boost_importance', { node_id: id, delta: 0.1, rationale: 'the release cadence matters' });
    const curation = await ok(writer, 'get_system_logs', { component: 'curation', limit: 1 });
    assert.equal(curation.entries[0].fields.tx_id, curated.tx_id);
    const errorsOnly = await ok(writer, 'get_system_logs', { level: 'error' });
    assert.ok(errorsOnly.entries.every((e: any) => e.level === 'error' || e.level === 'fatal'));
    assert.equal(toolError(await raw(writer, 'get_system_logs', { limit: 1001 }))?.code, 'INVALID_PARAMS');
    assert.equal(toolError(await raw(writer, 'get_system_logs', { component: 'kernel' }))?.code, 'INVALID_PARAMS');
    assert.equal(toolError(await raw(writer, 'get_system_logs', { level: 'trace' }))?.code, 'INVALID_PARAMS');
  });

  test('get_johari_classification returns 13 quadrants with confidences, different for different neighbourhoods (TC-GWT-001)', async () => {
    const first = await store('The staging database listens on port 5432.', { project_id: 'johari' });
    const twin = await store('The staging database listens on port 6543.', { project_id: 'johari' });
    await fingerprinted([first, twin]);
    const a = await ok(writer, 'get_johari_classification', { node_id: first });
    const b = await ok(writer, 'get_johari_classification', { node_id: twin });
    for (const r of [a, b]) {
      assert.equal(r.status, 'ready');
      assert.equal(r.quadrants.length, 13);
      assert.equal(r.confidence.length, 13);
      assert.ok(r.confidence.every((c: number) => c >= 0 && c <= 1));
      const e1 = r.spaces.find((s: any) => s.space === 'E1');
      assert.equal(e1.status, 'computed');
      assert.ok(r.quadrants.filter((q: any) => q !== null).length >= 10);
    }
    // The first memory of a project has nothing before it: new and isolated everywhere. Its
    // twin, written after it, is known in meaning.
    assert.equal(a.quadrants[0], 'blind');
    assert.ok(['open', 'hidden'].includes(b.quadrants[0]), b.quadrants[0]);
    assert.notDeepEqual(a.quadrants, b.quadrants);
    assert.equal(toolError(await raw(writer, 'get_johari_classification', { node_id: '01NOSUCHNODE00000000000000' }))?.code, 'NODE_NOT_FOUND');
    assert.equal(toolError(await raw(writer, 'get_johari_classification', {}))?.code, 'INVALID_PARAMS');
  });

  test('get_johari_classification insights name cross-space patterns (TC-GWT-002)', async () => {
    const first = await store('Rotate the signing key with rotateKeys() in src/auth/keys.ts.', { project_id: 'johari2' });
    const twin = await store('Rotate the signing key with renewSecrets() in lib/crypto/vault.go.', { project_id: 'johari2' });
    await fingerprinted([first, twin]);
    const r = await ok(writer, 'get_johari_classification', { node_id: twin });
    const e1 = r.spaces.find((s: any) => s.space === 'E1').quadrant;
    const e7 = r.spaces.find((s: any) => s.space === 'E7').quadrant;
    assert.ok(['open', 'hidden'].includes(e1) && ['blind', 'unknown'].includes(e7), `E1 ${e1}, E7 ${e7}`);
    assert.ok(
      r.insights.some((i: string) => /\(E1\) but \w+\(E7\): knows WHAT but not HOW/.test(i)),
      JSON.stringify(r.insights),
    );
    assert.match(r.insights[0], /^Mostly \w+ /);
    const lone = await ok(writer, 'get_johari_classification', { node_id: first });
    assert.ok(!lone.insights.some((i: string) => i.includes('but')), 'agreeing spaces: no contrast');
  });
});
