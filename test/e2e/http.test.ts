import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { openPglite } from '../../src/store/pglite.js';
import { call, startServe, tempDir, toolError, useEmbeddedServer } from '../helpers/cli.js';

describe('serve over Streamable HTTP (embedded mode)', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let server: Awaited<ReturnType<typeof startServe>>;
  let client: Client;
  let validStores = 0;

  useEmbeddedServer((f) => ({ dir, server, client } = f));

  test('tools/list publishes every tool with input and output schemas', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of ['store', 'query', 'search', 'push']) assert.ok(names.includes(name), name);
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object');
      assert.equal(t.outputSchema?.type, 'object');
      assert.ok(t.description?.includes('Example'));
    }
    const store = tools.find((t) => t.name === 'store')!;
    // content is required, under its own name or its alias text.
    assert.deepEqual((store.inputSchema as { allOf?: unknown }).allOf, [{ anyOf: [{ required: ['content'] }, { required: ['text'] }] }]);
    assert.equal(store.annotations?.readOnlyHint, false);
  });

  test('store then query finds the memory first', async () => {
    const distractors = [
      'The office coffee machine is descaled every Friday.',
      'Quarterly planning happens in the second week of January.',
      'The staging database is refreshed from production every night.',
    ];
    for (const content of distractors) {
      const r = await call(client, 'store', { content });
      assert.equal(r.isError, undefined, JSON.stringify(r.content));
      validStores++;
    }
    const stored = await call(client, 'store', {
      content: 'We deploy the payments service with blue-green releases and roll back within five minutes if errors exceed one percent.',
      topic: 'deployment',
      tags: ['ops', 'payments'],
    });
    validStores++;
    const s = stored.structuredContent as { kind: string; id: string; tx_id: number; searchable: boolean };
    assert.equal(s.kind, 'stored:v1');
    assert.match(s.id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.ok(s.tx_id > 0);
    assert.equal(s.searchable, true, 'embedded mode waits for the vectors');

    const result = await call(client, 'query', { query: 'how do we release the payments service and when do we roll back?' });
    const q = result.structuredContent as { kind: string; items: Array<{ id: string; score: number; signals: Record<string, unknown> }> };
    assert.equal(q.kind, 'entries:v1');
    assert.equal(q.items[0]?.id, s.id);
    assert.ok(q.items[0]!.signals.lexical, 'found by full text');
    assert.ok(q.items[0]!.signals.E1, 'found by the E1 vectors');
    const text = result.content[0];
    assert.ok(text?.type === 'text' && text.text.includes(s.id), 'markdown cites the id');
  });

  test('GET /healthz reports store, queue, embedding providers and index sizes', async () => {
    const res = await fetch(`${server.baseUrl}/healthz`);
    assert.equal(res.status, 200);
    const h = (await res.json()) as any;
    assert.equal(h.status, 'ok');
    assert.equal(h.store.driver, 'pglite');
    assert.equal(h.queue.backend, 'in-process');
    const e1 = h.embedding.find((e: any) => e.space === 'E1');
    assert.equal(e1.provider, 'glove-static', 'the bundled GloVe model is the default E1');
    assert.equal(e1.modelId, 'glove-6b-100d-100k-int8-sif-pc1-v1');
    assert.ok(h.embedding.some((e: any) => e.space === 'E9'));
    assert.equal(h.index.sizes.E1, validStores);
    // All 13 spaces of seed 001 produce vectors, each under its model id.
    assert.equal(h.spaces.length, 13);
    for (const s of h.spaces) {
      assert.equal(s.status, 'implemented', s.id);
      assert.ok(s.encoder?.model_id, `${s.id} has a model id`);
      assert.equal(h.index.sizes[s.id], validStores, `${s.id} indexed every memory`);
    }
  });

  test('requests with a foreign Host header are refused', async () => {
    // fetch does not let a caller set Host, so speak HTTP directly, as a rebinding page's request would arrive.
    const url = new URL(server.baseUrl);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      request({ host: url.hostname, port: url.port, path: '/healthz', headers: { host: 'evil.example:7411' } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      })
        .on('error', reject)
        .end();
    });
    assert.equal(status, 403);
  });

  const bad: Array<[string, string, Record<string, unknown>, string]> = [
    ['empty content', 'store', { content: '' }, 'content'],
    ['65,537 characters', 'store', { content: 'x'.repeat(65_537) }, 'content'],
    ['unknown field', 'store', { content: 'ok', colour: 'red' }, 'colour'],
    ['wrong type', 'store', { content: 42 }, 'content'],
    ['bad enum', 'store', { content: 'ok', memory_type: 'dream' }, 'memory_type'],
    ['importance out of range', 'store', { content: 'ok', importance: 2 }, 'importance'],
    ['limit 0', 'query', { query: 'x', limit: 0 }, 'limit'],
    ['limit 51', 'query', { query: 'x', limit: 51 }, 'limit'],
    ['limit not an integer', 'query', { query: 'x', limit: 2.5 }, 'limit'],
    ['time_range start after end', 'search', { query_text: 'x', time_range: { start: '2026-02-01T00:00:00Z', end: '2026-01-01T00:00:00Z' } }, 'time_range'],
    ['push chunk_size too small', 'push', { text: 'x', chunk_size: 2 }, 'chunk_size'],
  ];
  for (const [label, tool, args, field] of bad) {
    test(`bad input is a clear INVALID_PARAMS tool error: ${label}`, async () => {
      const result = await call(client, tool, args);
      const err = toolError(result);
      assert.ok(err, 'an error result');
      assert.equal(err.kind, 'toolError:v1');
      assert.equal(err.code, 'INVALID_PARAMS');
      assert.equal(err.retryable, false);
      assert.ok(err.message.includes(field), err.message);
      assert.ok(!/at \w+ \(|\.ts:|\.js:|node_modules/.test(JSON.stringify(result)), 'no internals leak');
    });
  }

  test('the exact bounds are accepted: 65,536 characters, limit 1 and 50', async () => {
    const r = await call(client, 'store', { content: 'y'.repeat(65_536) });
    assert.equal(r.isError, undefined);
    validStores++;
    for (const limit of [1, 50]) assert.equal((await call(client, 'query', { query: 'y', limit })).isError, undefined);
  });

  test('an unknown tool is a registry error', async () => {
    const err = toolError(await call(client, 'nope', {}));
    assert.equal(err?.code, 'UNKNOWN_TOOL');
  });

  test('rejected calls wrote nothing: the store holds exactly the accepted memories', async () => {
    await client.close();
    await server.stop();
    const db = await openPglite(dir.path);
    try {
      const [nodes] = await db.query<{ n: number }>('select count(*)::int as n from nodes');
      const [txs] = await db.query<{ n: number }>('select count(*)::int as n from transactions');
      assert.equal(nodes!.n, validStores);
      assert.equal(txs!.n, validStores);
    } finally {
      await db.close();
    }
  });
});
