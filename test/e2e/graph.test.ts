import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, startServe, tempDir, toolError, useEmbeddedServer } from '../helpers/cli.js';

describe('graph tools over Streamable HTTP (embedded mode)', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let server: Awaited<ReturnType<typeof startServe>>;
  let client: Client;
  const ids: Record<string, string> = {};

  useEmbeddedServer((f) => ({ dir, server, client } = f));

  test('tools/list publishes relate and query_graph in the graph toolset', async () => {
    const { tools } = await client.listTools();
    const relate = tools.find((t) => t.name === 'relate');
    const qg = tools.find((t) => t.name === 'query_graph');
    assert.ok(relate && qg);
    assert.equal(relate._meta?.['context-graph/toolset'], 'graph');
    assert.equal(qg.annotations?.readOnlyHint, true);
    assert.deepEqual(qg.inputSchema.required, ['node']);
    assert.ok(relate.description?.includes('Example'));
  });

  test('store two entries, relate them and an entity, and query_graph returns them', async () => {
    for (const [key, content, topic] of [
      ['api', 'The public API gateway terminates TLS and routes to the payments service.', 'api gateway'],
      ['payments', 'The payments service settles card transactions nightly.', 'payments service'],
    ] as const) {
      const r = await call(client, 'store', { content, topic });
      assert.equal(r.isError, undefined, JSON.stringify(r.content));
      ids[key] = (r.structuredContent as { id: string }).id;
    }

    const rel = await call(client, 'relate', {
      triples: [
        { subject: ids.api, predicate: 'routes_to', object: ids.payments, edge_type: 'Causal', weight: 0.9 },
        { subject: ids.payments, predicate: 'stores_in', object: 'Postgres', valid_from: '2024-01-01' },
      ],
    });
    assert.equal(rel.isError, undefined, JSON.stringify(rel.content));
    const r = rel.structuredContent as any;
    assert.equal(r.kind, 'triples:v1');
    assert.ok(r.tx_id > 0);
    assert.equal(r.triples.length, 2);
    assert.ok(r.triples.every((t: any) => t.created === true));
    assert.deepEqual(
      r.entities_created.map((e: any) => e.name),
      ['Postgres'],
    );
    assert.equal(r.triples[1].valid_from, '2024-01-01T00:00:00.000Z');
    const md = rel.content[0];
    assert.ok(md?.type === 'text' && md.text.includes('<!-- kind:triple-index:v1 -->'));
    assert.equal((md.text.match(/<!-- kind:triple-card:v1 -->/g) ?? []).length, 2);

    // The same triple again is reported as existing, with nothing written.
    const dup = (await call(client, 'relate', { subject: ids.api, predicate: 'routes_to', object: ids.payments })).structuredContent as any;
    assert.equal(dup.tx_id, null);
    assert.equal(dup.triples[0].created, false);
    assert.equal(dup.triples[0].id, r.triples[0].id);

    const q = await call(client, 'query_graph', { node: ids.api, depth: 2 });
    assert.equal(q.isError, undefined, JSON.stringify(q.content));
    const g = q.structuredContent as any;
    assert.equal(g.kind, 'graph:v1');
    assert.equal(g.start.id, ids.api);
    assert.ok(g.as_of_tx_id >= r.tx_id);
    assert.deepEqual(g.nodes.map((n: any) => [n.name, n.depth]).sort(), [
      ['Postgres', 2],
      ['api gateway', 0],
      ['payments service', 1],
    ]);
    assert.equal(g.triples.length, 2);
    assert.deepEqual(g.contract_markers, { index: 1, cards: 2, version: 'v1' });
    const text = q.content[0];
    assert.ok(text?.type === 'text' && text.text.includes(ids.payments!));
    assert.equal((text.text.match(/<!-- kind:triple-card:v1 -->/g) ?? []).length, g.contract_markers.cards);

    // By entity name, incoming only, as of the relate transaction.
    const byName = (await call(client, 'query_graph', { node: 'postgres', direction: 'in', as_of_tx_id: r.tx_id })).structuredContent as any;
    assert.equal(byName.as_of_tx_id, r.tx_id);
    assert.deepEqual(byName.nodes.map((n: any) => n.id).sort(), [byName.start.id, ids.payments].sort());
    // Before the relate, the entity did not exist.
    const before = (await call(client, 'query_graph', { node: 'Postgres', as_of_tx_id: r.tx_id - 1 })).structuredContent as any;
    assert.equal(before.kind, 'needsInput:v1');
  });

  test('format=json gives a JSON block that parses to structuredContent', async () => {
    const q = await call(client, 'query_graph', { node: ids.payments, format: 'json' });
    assert.equal(q.isError, undefined);
    const last = q.content[q.content.length - 1]!;
    assert.ok(last.type === 'text');
    assert.deepEqual(JSON.parse(last.text), q.structuredContent);
    assert.equal(q.content.length, 1, 'format json is exactly one JSON block');
  });

  test('an unknown start asks for input with close names', async () => {
    const q = await call(client, 'query_graph', { node: 'Postgress' });
    assert.equal(q.isError, undefined);
    const p = q.structuredContent as any;
    assert.equal(p.kind, 'needsInput:v1');
    assert.deepEqual(p.needsInput.fields, ['node']);
    assert.ok(p.needsInput.suggestions.node.length <= 5);
    assert.equal(p.needsInput.suggestions.node[0], 'Postgres');
  });

  test('errors: unknown entry id, missing fields, bad dates, batch over 100', async () => {
    const missing = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
    const notFound = toolError(await call(client, 'relate', { subject: ids.api, predicate: 'x', object: missing }));
    assert.equal(notFound?.code, 'NODE_NOT_FOUND');
    assert.equal(notFound?.details?.id, missing);
    for (const args of [
      { subject: 'a', predicate: 'b' },
      { subject: 'a', predicate: 'b', object: 'c', valid_from: 'yesterday-ish' },
      { subject: 'a', predicate: 'b', object: 'c', edge_type: 'Friendly' },
      { triples: Array.from({ length: 101 }, (_, i) => ({ subject: `s${i}`, predicate: 'p', object: 'o' })) },
      { triples: [{ subject: 'a', predicate: 'b', object: 'c' }], subject: 'd' },
    ]) {
      const err = toolError(await call(client, 'relate', args));
      assert.equal(err?.code, 'INVALID_PARAMS', JSON.stringify(args));
    }
    const depth = toolError(await call(client, 'query_graph', { node: 'Postgres', depth: 4 }));
    assert.equal(depth?.code, 'INVALID_PARAMS');
  });
});
