import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, httpClient, toolError, useEmbeddedServer, type ServerFixture } from '../helpers/cli.js';

/** Calls a tool and returns its structured payload, failing the test on an error result. */
async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const r = await call(client, name, args);
  assert.equal(r.isError, undefined, `${name}: ${JSON.stringify(r.content)}`);
  return r.structuredContent;
}

/** Polls until `check` returns a value (the automatic-edge jobs run after the write answered). */
async function eventually<T>(check: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 150; i++) {
    const v = await check();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('navigation toolset over Streamable HTTP (seed 001 §3.3, §6.3)', () => {
  let f: ServerFixture;
  useEmbeddedServer((fixture) => (f = fixture), { CONTEXT_GRAPH_AUTO_EDGES: 'on' });
  const relate = (triples: object[], project_id = 'nav') => ok(f.client, 'relate', { triples, project_id });
  const idOf = (r: any, name: string): string => r.triples.flatMap((t: any) => [t.subject, t.object]).find((e: any) => e.name === name).id;

  test('tools/list has the navigation toolset with schemas from seed 001', async () => {
    const { tools } = await f.client.listTools();
    for (const name of ['get_neighborhood', 'find_causal_path', 'entailment_query', 'get_recent_context', 'build_edges']) {
      const t = tools.find((x) => x.name === name);
      assert.ok(t, name);
      assert.equal(t._meta?.['context-graph/toolset'], 'navigation');
      assert.match(t.description ?? '', /When to use/);
    }
    const nb = tools.find((t) => t.name === 'get_neighborhood')!.inputSchema as any;
    assert.deepEqual(nb.required, ['node_id']);
    assert.equal(nb.properties.min_weight.default, 0.3);
    assert.deepEqual(nb.properties.edge_types.items.enum, ['Semantic', 'Temporal', 'Causal', 'Hierarchical', 'Relational', 'Shortcut']);
  });

  // A conversation written for this test: a cause stated in one turn, its consequences in later ones.
  const turns = [
    'The nightly database migration locked the users table for ten minutes.',
    'The Friday deploy failed because the database migration locked the users table.',
    'Why did customers complain about logins on Saturday?',
    'Because the Friday deploy failed and the login page was down for an hour.',
    'So the team rolled back the release on Sunday morning.',
  ];
  const conv: string[] = [];

  test('automatic Temporal and Causal edges appear from the text of a conversation', async () => {
    for (const [i, content] of turns.entries()) {
      const r = await ok(f.client, 'store', { content, project_id: 'chat', source_uri: 'chat://release-week', valid_from: `2026-03-0${i + 1}T10:00:00Z` });
      conv.push(r.id);
    }
    // Temporal: each turn is followed by the next one of the same source.
    const n2 = await eventually(async () => {
      const r = await ok(f.client, 'get_neighborhood', { node_id: conv[1], edge_types: ['Temporal', 'Causal'] });
      return r.neighbors.some((n: any) => n.edge_type === 'Causal') && r.neighbors.some((n: any) => n.id === conv[2]) ? r : undefined;
    }, 'edges around turn 2');
    const t1 = n2.neighbors.find((n: any) => n.id === conv[0] && n.edge_type === 'Temporal');
    assert.equal(t1?.direction, 'incoming');
    assert.equal(t1?.method, 'sequence');
    // Causal from "because <clause>": the turn stating the clause causes this one.
    const cause = n2.neighbors.find((n: any) => n.id === conv[0] && n.edge_type === 'Causal');
    assert.ok(cause, JSON.stringify(n2.neighbors));
    assert.equal(cause.direction, 'incoming');
    assert.equal(cause.method, 'cue:because');
    assert.ok(cause.weight >= 0.8 && cause.weight <= 1);

    // A reply opening with "Because …" causes the question before it; "So …" follows from the turn before.
    const chain = await eventually(async () => {
      const r = await ok(f.client, 'find_causal_path', { source_id: conv[0], target_id: conv[4], max_hops: 5 });
      return r.found ? r : undefined;
    }, 'a causal chain from turn 1 to turn 5');
    assert.deepEqual(
      chain.path.map((n: any) => n.id),
      [conv[0], conv[1], conv[3], conv[4]],
    );
    assert.deepEqual(
      chain.hops.map((h: any) => h.method),
      ['cue:because', 'cue:because', 'cue:so'],
    );
    const reply = await ok(f.client, 'get_neighborhood', { node_id: conv[3], edge_types: ['Causal'] });
    assert.ok(reply.neighbors.some((n: any) => n.id === conv[2] && n.direction === 'outgoing' && n.method === 'cue:because'));
  });

  test('automatic Semantic and Hierarchical edges: near neighbours in E1, tags, topics and "X is a Y"', async () => {
    const a = await ok(f.client, 'store', {
      content: 'Alice adopted a small brown poodle puppy from the shelter last week.',
      project_id: 'pets',
      tags: ['pets'],
      topic: 'adoption',
    });
    const b = await ok(f.client, 'store', { content: 'Alice adopted a small brown poodle puppy from the animal shelter.', project_id: 'pets' });
    await ok(f.client, 'store', { content: 'A poodle is a dog breed with curly fur.', project_id: 'pets' });
    const near = await eventually(async () => {
      const r = await ok(f.client, 'get_neighborhood', { node_id: b.id, edge_types: ['Semantic'] });
      return r.neighbors.find((n: any) => n.id === a.id);
    }, 'a Semantic edge between the two adoption memories');
    assert.equal(near.direction, 'undirected');
    assert.equal(near.method, 'e1_knn');
    assert.ok(near.weight >= 0.75);
    const up = await eventually(async () => {
      const r = await ok(f.client, 'get_neighborhood', { node_id: a.id, edge_types: ['Hierarchical'] });
      return r.neighbors.length >= 2 ? r : undefined;
    }, 'Hierarchical edges to the tag and topic');
    assert.deepEqual(up.neighbors.map((n: any) => `${n.name}:${n.predicate}:${n.direction}`).sort(), ['adoption:in_topic:outgoing', 'pets:tagged:outgoing']);
    const poodle = await eventually(async () => {
      const r = await ok(f.client, 'relate', { subject: 'poodle', predicate: 'noop_probe', object: 'poodle probe', project_id: 'pets' });
      const id = r.triples[0].subject.id;
      const n = await ok(f.client, 'get_neighborhood', { node_id: id, edge_types: ['Hierarchical'] });
      return n.neighbors.find((x: any) => x.predicate === 'is_a');
    }, 'poodle is_a dog breed from the text');
    assert.equal(poodle.name, 'dog breed');
    assert.equal(poodle.method, 'pattern:is_a');
    // A whole-project run adds nothing that already exists.
    const rebuilt = await ok(f.client, 'build_edges', { project_id: 'pets' });
    assert.equal(rebuilt.status, 'done');
    assert.equal(rebuilt.memories, 3);
    assert.deepEqual(rebuilt.created, { Semantic: 0, Temporal: 0, Causal: 0, Hierarchical: 0 });
  });

  test('TC-NAV-001/002: direct neighbours, and 3-hop neighbours at depth 3', async () => {
    const r = await relate([
      { subject: 'A-node', predicate: 'feeds', object: 'B-node', weight: 0.9 },
      { subject: 'B-node', predicate: 'feeds', object: 'C-node', weight: 0.8 },
      { subject: 'C-node', predicate: 'feeds', object: 'D-node', weight: 0.7 },
      { subject: 'A-node', predicate: 'mentions', object: 'Weak-node', weight: 0.1 },
    ]);
    const a = idOf(r, 'A-node');
    const one = await ok(f.client, 'get_neighborhood', { node_id: a });
    assert.deepEqual(
      one.neighbors.map((n: any) => [n.name, n.depth, n.edge_type, n.weight, n.confidence, n.direction]),
      [['B-node', 1, 'Relational', 0.9, 1, 'outgoing']],
    );
    const three = await ok(f.client, 'get_neighborhood', { node_id: a, depth: 3 });
    assert.deepEqual(
      three.neighbors.map((n: any) => [n.name, n.depth]),
      [
        ['B-node', 1],
        ['C-node', 2],
        ['D-node', 3],
      ],
    );
    const all = await ok(f.client, 'get_neighborhood', { node_id: a, min_weight: 0 });
    assert.ok(all.neighbors.some((n: any) => n.name === 'Weak-node'));
    const none = await ok(f.client, 'get_neighborhood', { node_id: a, edge_types: ['Causal'] });
    assert.equal(none.neighbors.length, 0);
  });

  test('TC-NAV-003/004/005 and EC-MCP-004: a causal chain, no chain, and a cycle', async () => {
    const r = await relate([
      { subject: 'UserAuth', predicate: 'requires', object: 'JWT', edge_type: 'Causal', weight: 0.9 },
      { subject: 'JWT', predicate: 'checked_by', object: 'Middleware', edge_type: 'Causal', weight: 0.8 },
      { subject: 'Middleware', predicate: 'enables', object: 'RateLimiting', edge_type: 'Causal', weight: 0.7 },
      { subject: 'CycleA', predicate: 'causes', object: 'CycleB', edge_type: 'Causal' },
      { subject: 'CycleB', predicate: 'causes', object: 'CycleC', edge_type: 'Causal' },
      { subject: 'CycleC', predicate: 'causes', object: 'CycleA', edge_type: 'Causal' },
      { subject: 'Elsewhere', predicate: 'is', object: 'Unrelated', edge_type: 'Causal' },
    ]);
    const path = await ok(f.client, 'find_causal_path', { source_id: idOf(r, 'UserAuth'), target_id: idOf(r, 'RateLimiting') });
    assert.equal(path.found, true);
    assert.equal(path.chain, 'UserAuth → JWT → Middleware → RateLimiting');
    assert.deepEqual(
      path.hops.map((h: any) => [h.predicate, h.weight, h.direction]),
      [
        ['requires', 0.9, 'outgoing'],
        ['checked_by', 0.8, 'outgoing'],
        ['enables', 0.7, 'outgoing'],
      ],
    );
    assert.equal(path.cycle_detected, false);
    const short = await ok(f.client, 'find_causal_path', { source_id: idOf(r, 'UserAuth'), target_id: idOf(r, 'RateLimiting'), max_hops: 2 });
    assert.equal(short.found, false);

    const none = await ok(f.client, 'find_causal_path', { source_id: idOf(r, 'RateLimiting'), target_id: idOf(r, 'UserAuth') });
    assert.deepEqual([none.found, none.path, none.hops, none.cycle_detected], [false, [], [], false]);
    const back = await ok(f.client, 'find_causal_path', { source_id: idOf(r, 'RateLimiting'), target_id: idOf(r, 'UserAuth'), direction: 'backward' });
    assert.equal(back.chain, 'RateLimiting → Middleware → JWT → UserAuth');

    const cyc = await ok(f.client, 'find_causal_path', { source_id: idOf(r, 'CycleA'), target_id: idOf(r, 'Unrelated') });
    assert.equal(cyc.found, false);
    assert.equal(cyc.cycle_detected, true);
    assert.deepEqual(
      cyc.path.map((n: any) => n.name),
      ['CycleA', 'CycleB', 'CycleC', 'CycleA'],
    );
    assert.deepEqual(cyc.cycle, [idOf(r, 'CycleA'), idOf(r, 'CycleB'), idOf(r, 'CycleC'), idOf(r, 'CycleA')]);
  });

  test('TC-NAV-006: ancestors are the cones containing the node; the fit follows hierarchy changes', async () => {
    const isA = (child: string, parent: string) => ({ subject: child, predicate: 'is_a', object: parent, edge_type: 'Hierarchical' });
    const r = await relate(
      [
        isA('poodle', 'dog'),
        isA('beagle', 'dog'),
        isA('dog', 'mammal'),
        isA('cat', 'mammal'),
        isA('mammal', 'animal'),
        isA('sparrow', 'bird'),
        isA('eagle', 'bird'),
        isA('bird', 'animal'),
        isA('salmon', 'fish'),
        isA('fish', 'animal'),
      ],
      'zoo',
    );
    const q = await ok(f.client, 'entailment_query', { node_id: idOf(r, 'poodle'), direction: 'ancestors' });
    assert.equal(q.fitted, true);
    assert.deepEqual(q.ancestors.map((m: any) => m.name).sort(), ['animal', 'dog', 'mammal']);
    for (const m of q.ancestors) assert.ok(m.angle <= m.aperture);
    const down = await ok(f.client, 'entailment_query', { node_id: idOf(r, 'mammal'), direction: 'descendants' });
    assert.deepEqual(down.descendants.map((m: any) => m.name).sort(), ['beagle', 'cat', 'dog', 'poodle']);
    const root = await ok(f.client, 'entailment_query', { node_id: idOf(r, 'animal') });
    assert.ok(root.norm < q.norm, 'the general concept sits nearer the origin');
    assert.equal(root.ancestors.length, 0);

    // A new edge: the answer says stale while the refit runs, then the new node has its ancestors.
    const more = await relate([isA('siamese', 'cat')], 'zoo');
    const siamese = idOf(more, 'siamese');
    const after = await eventually(async () => {
      const s = await ok(f.client, 'entailment_query', { node_id: siamese, direction: 'ancestors' });
      return s.fitted && !s.stale ? s : undefined;
    }, 'the refit with siamese');
    assert.deepEqual(after.ancestors.map((m: any) => m.name).sort(), ['animal', 'cat', 'mammal']);

    const loner = await ok(f.client, 'store', { content: 'A note outside every hierarchy.', project_id: 'zoo-free' });
    const free = await ok(f.client, 'entailment_query', { node_id: loner.id });
    assert.deepEqual([free.fitted, free.reason], [false, 'not_in_hierarchy']);
  });

  test('TC-NAV-007: session_only lists this session’s memories only, most recent access first', async () => {
    const other = await httpClient(f.server.mcpUrl, 'other-session');
    try {
      const mine1 = await ok(f.client, 'store', { content: 'Session one decided to use blue-green deploys.', project_id: 'recent' });
      const theirs = await ok(other, 'store', { content: 'Session two picked canary releases instead.', project_id: 'recent' });
      const mine2 = await ok(f.client, 'store', { content: 'Session one also set a five minute rollback window.', project_id: 'recent' });
      // Reading a memory makes it the most recent.
      await ok(f.client, 'query', { id: mine1.id });
      const own = await ok(f.client, 'get_recent_context', { session_only: true, project_id: 'recent' });
      assert.deepEqual(
        own.items.map((i: any) => i.id),
        [mine1.id, mine2.id],
      );
      const everyone = await ok(f.client, 'get_recent_context', { project_id: 'recent' });
      assert.deepEqual(new Set(everyone.items.map((i: any) => i.id)), new Set([mine1.id, mine2.id, theirs.id]));
      assert.equal(everyone.items[0].id, mine1.id);
      const theirsOnly = await ok(other, 'get_recent_context', { session_only: true, project_id: 'recent', limit: 1 });
      assert.deepEqual(
        theirsOnly.items.map((i: any) => i.id),
        [theirs.id],
      );
      const future = await ok(f.client, 'get_recent_context', { since: '2999-01-01T00:00:00Z' });
      assert.equal(future.items.length, 0);
    } finally {
      await other.close();
    }
  });

  test('validation: bounds and enums answer INVALID_PARAMS (-32002) with the allowed values; unknown ids NODE_NOT_FOUND (-32012)', async () => {
    const missing = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
    for (const [tool, args] of [
      ['get_neighborhood', { node_id: missing, depth: 4 }],
      ['get_neighborhood', { node_id: missing, min_weight: 1.5 }],
      ['find_causal_path', { source_id: missing, target_id: missing, max_hops: 11 }],
      ['get_recent_context', { limit: 101 }],
      ['entailment_query', { node_id: missing, embedding_space: 'E2' }],
    ] as const) {
      const err = toolError(await call(f.client, tool, args));
      assert.equal(err?.code, 'INVALID_PARAMS', `${tool} ${JSON.stringify(args)}`);
    }
    const badType = toolError(await call(f.client, 'get_neighborhood', { node_id: missing, edge_types: ['Friendly'] }));
    assert.deepEqual(badType?.details?.issues?.[0]?.allowed ?? badType?.details?.allowed, ['Semantic', 'Temporal', 'Causal', 'Hierarchical', 'Relational', 'Shortcut']);
    const dir = toolError(await call(f.client, 'find_causal_path', { source_id: missing, target_id: missing, direction: 'sideways' }));
    assert.match(dir?.message ?? '', /forward.*backward.*bidirectional/);
    for (const [tool, args] of [
      ['get_neighborhood', { node_id: missing }],
      ['find_causal_path', { source_id: missing, target_id: missing }],
      ['entailment_query', { node_id: missing }],
    ] as const) {
      const err = toolError(await call(f.client, tool, args));
      assert.equal(err?.code, 'NODE_NOT_FOUND', tool);
    }
  });
});
