import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { tempDir, toolError } from '../helpers/cli.js';
import { inMemoryClient } from '../helpers/in-memory.js';

const MINUTE = 60_000;

// The real app and MCP server in process (the test owns the clock, so a broadcast can decay),
// two SDK clients = two sessions. Automatic edges are off so edge counts are the test's own.
describe('global workspace: activation, broadcast into every session, integration, ego', () => {
  let app: App;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let offsetMs = 0;
  let a: Client;
  let b: Client;
  const ids: Record<string, string> = {};
  const P = 'ws';

  before(async () => {
    dir = await tempDir();
    app = await createApp(loadConfig({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_TOOLSETS: 'all', CONTEXT_GRAPH_AUTO_EDGES: 'off' }), createLogger('warn'), {
      clock: { now: () => new Date(Date.now() + offsetMs) },
    });
    a = await inMemoryClient(app, { name: 'ws-a', actor: 'session-a' });
    b = await inMemoryClient(app, { name: 'ws-b', actor: 'session-b' });
  });
  after(async () => {
    await a.close();
    await b.close();
    await app.close();
    await dir.remove();
  });

  async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
    const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
    assert.equal(r.isError, undefined, `${name}: ${JSON.stringify(r.content)}`);
    return r.structuredContent;
  }
  const recentFirst = async (client: Client, args: Record<string, unknown> = {}) => (await ok(client, 'get_recent_context', { project_id: P, ...args })).items[0];

  test('the workspace ranks memories by activation; the winner is the most important one', async () => {
    ids.goal = (
      await ok(a, 'store', { content: 'The billing migration to the new ledger must finish before the March audit.', topic: 'billing', importance: 1, project_id: P })
    ).id;
    ids.lunch1 = (await ok(a, 'store', { content: 'Dana prefers sushi for the Thursday team lunch.', topic: 'lunch', importance: 0.2, project_id: P })).id;
    ids.lunch2 = (await ok(a, 'store', { content: 'The Friday lunch moved to the pizza place on 5th Street.', topic: 'lunch', importance: 0.2, project_id: P })).id;
    ids.lunch3 = (await ok(a, 'store', { content: 'Sam brings cake for the lunch on birthdays.', topic: 'lunch', importance: 0.2, project_id: P })).id;
    ids.lunch4 = (await ok(a, 'store', { content: 'Lunch orders go into the shared sheet by eleven.', topic: 'lunch', importance: 0.2, project_id: P })).id;
    const ws = await ok(a, 'get_workspace_status', { project_id: P });
    assert.equal(ws.candidates, 5);
    assert.equal(ws.members.length, 5);
    assert.equal(ws.winner, ids.goal);
    for (let i = 1; i < ws.members.length; i++) assert.ok(ws.members[i - 1].activation >= ws.members[i].activation);
    // Each activation is the weighted mean of its parts (L drops out before the fingerprint).
    for (const m of ws.members) {
      const p = m.parts;
      const w = p.learning === null ? 0.8 : 1;
      const expected = (0.3 * p.recency + 0.3 * p.importance + 0.2 * p.frequency + 0.2 * (p.learning ?? 0)) / w;
      assert.ok(Math.abs(m.activation - expected) < 1e-3, JSON.stringify(m));
    }
    assert.ok(Math.abs(ws.members.reduce((s: number, m: any) => s + m.share, 0) - 1) < 1e-3);
    assert.equal(toolError((await a.callTool({ name: 'get_workspace_status', arguments: { project_id: 'bad project!' } })) as CallToolResult)?.code, 'INVALID_PARAMS');
  });

  test("importance and retrieval frequency move a memory's activation", async () => {
    const before = (await ok(a, 'get_workspace_status', { project_id: P })).members.find((m: any) => m.id === ids.lunch2);
    await ok(a, 'boost_importance', { node_id: ids.lunch2, delta: 0.5, rationale: 'lunch logistics matter this week' });
    for (let i = 0; i < 3; i++) await ok(a, 'query', { id: ids.lunch3 });
    const ws = await ok(a, 'get_workspace_status', { project_id: P });
    const boosted = ws.members.find((m: any) => m.id === ids.lunch2);
    assert.ok(Math.abs(boosted.parts.importance - 0.7) < 1e-4);
    assert.ok(boosted.activation > before.activation, `${before.activation} → ${boosted.activation}`);
    const read = ws.members.find((m: any) => m.id === ids.lunch3);
    assert.equal(read.parts.frequency, 1, 'the most retrieved memory has frequency 1');
    assert.ok(boosted.parts.frequency < 1);
    await ok(a, 'undo', { steps: 1 });
  });

  test("a broadcast puts the winner first in every session's recent context; undo retracts it; it decays after its hold", async () => {
    const plain = await recentFirst(b);
    assert.notEqual(plain.id, ids.goal, 'the winner is not the most recent memory');
    const bc = await ok(a, 'trigger_workspace_broadcast', { project_id: P });
    assert.equal(bc.node_id, ids.goal);
    assert.equal(bc.was_winner, true);
    assert.equal(bc.hold_minutes, 60);
    for (const [client, args] of [
      [b, {}],
      [b, { session_only: true }],
      [a, {}],
    ] as const) {
      const first = await recentFirst(client, args);
      assert.equal(first.id, ids.goal, JSON.stringify(args));
      assert.equal(first.broadcast, true);
    }
    const status = await ok(b, 'get_workspace_status', { project_id: P });
    // Strength falls linearly over the hold (60 min): right after the broadcast it is about 1.
    assert.ok(status.members.find((m: any) => m.id === ids.goal).broadcast_strength > 0.99);

    await ok(a, 'undo', {});
    assert.equal((await recentFirst(b)).id, plain.id, 'undo retracted the broadcast');

    await ok(a, 'trigger_workspace_broadcast', { project_id: P, node_id: ids.lunch4, rationale: 'everyone must order lunch today' });
    assert.equal((await recentFirst(b)).id, ids.lunch4);
    offsetMs = 30 * MINUTE;
    const half = (await ok(b, 'get_workspace_status', { project_id: P })).members.find((m: any) => m.id === ids.lunch4).broadcast_strength;
    assert.ok(Math.abs(half - 0.5) < 0.01, `half way through the hold: ${half}`);
    assert.equal((await recentFirst(b)).id, ids.lunch4, 'still in effect half way');
    offsetMs = 61 * MINUTE;
    const after = await recentFirst(b);
    assert.notEqual(after.id, ids.lunch4, 'decayed');
    assert.equal(after.broadcast, undefined);
    offsetMs = 0;
    const missing = (await a.callTool({ name: 'trigger_workspace_broadcast', arguments: { project_id: P, node_id: '01J9Z3K6Q4M8W2X5Y7R1T0V3AB' } })) as CallToolResult;
    assert.equal(toolError(missing)?.code, 'NODE_NOT_FOUND');
  });

  test('get_consciousness_state: an edge between members raises density; r is reported as not computed', async () => {
    const s0 = await ok(a, 'get_consciousness_state', { project_id: P });
    assert.equal(s0.members, 5);
    assert.equal(s0.kuramoto.r, null);
    assert.equal(s0.kuramoto.reason, 'not computed yet');
    assert.ok(s0.activation_entropy > 0 && s0.activation_entropy <= 1);
    assert.ok(s0.semantic_coherence !== null);
    await ok(a, 'relate', { subject: ids.goal, predicate: 'scheduled_around', object: ids.lunch1, project_id: P });
    const s1 = await ok(a, 'get_consciousness_state', { project_id: P });
    assert.equal(s1.edges_among_members, s0.edges_among_members + 1);
    assert.ok(Math.abs(s1.edge_density - s1.edges_among_members / 10) < 1e-4);
    assert.ok(s1.level > s0.level);
    assert.ok(['dormant', 'fragmented', 'emerging', 'conscious'].includes(s1.state));
  });

  test('get_ego_state: dominant topics follow importance; identity continuity drops when the store changes subject', async () => {
    const e0 = await ok(a, 'get_ego_state', { project_id: P });
    // billing: one memory of importance 1; lunch: four of 0.2.
    assert.deepEqual(
      e0.dominant_topics.map((t: any) => [t.name, t.weight, t.memories]),
      [
        ['billing', 1, 1],
        ['lunch', 0.8, 4],
      ],
    );
    assert.ok(e0.dominant_terms.length > 0);
    await ok(a, 'boost_importance', { node_id: ids.goal, delta: -0.5, rationale: 'the audit was moved to next year' });
    await ok(a, 'boost_importance', { node_id: ids.lunch1, delta: 0.5, rationale: 'lunch is what the team talks about' });
    const e1 = await ok(a, 'get_ego_state', { project_id: P });
    assert.ok(e1.identity.continuity !== null && e1.identity.continuity < 1, JSON.stringify(e1.identity));
    assert.equal(e1.dominant_topics[0].name, 'lunch', 'lowering billing and raising a lunch memory reorders the topics');
    const sameState = await ok(a, 'get_ego_state', { project_id: P });
    assert.equal(sameState.identity.continuity, e1.identity.continuity, 'no write: compared with the same snapshot');
    for (const content of [
      'Kubernetes pods restart when the liveness probe fails.',
      'The cluster autoscaler adds nodes when pods are pending.',
      'Helm charts pin the image tag of every deployment.',
    ])
      await ok(a, 'store', { content, topic: 'kubernetes', importance: 1, project_id: P });
    await ok(a, 'query', { topic: 'kubernetes', project_id: P });
    // The new memories need their vectors before they move the purpose vector.
    let e2: any;
    for (let i = 0; i < 100; i++) {
      e2 = await ok(a, 'get_ego_state', { project_id: P });
      if (e2.identity.continuity_since_first !== null && e2.identity.continuity_since_first < 0.99) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(e2.identity.continuity_since_first < 0.99, JSON.stringify(e2.identity));
    assert.equal(e2.dominant_topics[0].name, 'kubernetes');
    assert.ok(['healthy', 'warning', 'degraded', 'critical'].includes(e2.identity.status));
  });
});
