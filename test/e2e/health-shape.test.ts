import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import postgres from 'postgres';
import { call, childEnv, httpClient, startServe, tempDir, useEmbeddedServer, type ServerFixture } from '../helpers/cli.js';

const DATABASE_URL = process.env.DATABASE_URL;
const REDIS_URL = process.env.REDIS_URL;

async function readHealth(client: Client): Promise<any> {
  const res = await client.readResource({ uri: 'knowledge://health' });
  const c = res.contents[0]!;
  assert.equal(c.mimeType, 'application/json');
  return JSON.parse((c as { text: string }).text).items[0];
}

/** Seed 004's preflight fields, whatever the stores: E1's provider and model, each store's section. */
function assertSeedShape(h: any, store: 'pglite' | 'postgres', queue: 'in-process' | 'bullmq'): void {
  const e1 = h.embedding.find((e: any) => e.space === 'E1');
  assert.equal(h.embedding_provider, e1.provider);
  assert.equal(h.embedding_model, e1.modelId);
  assert.equal(h[store].reachable, true);
  assert.match(h[store].collection, /^[A-Za-z_][A-Za-z0-9_]*\.embeddings$/);
  assert.equal(h[store].vector_size, e1.dim);
  assert.equal(h[store].last_tx_id, h.store.last_tx_id);
  assert.equal(h[queue].reachable, true);
  assert.equal(typeof h[queue].waiting, 'number');
  for (const enc of h.embedding) {
    assert.deepEqual(h.usearch.spaces[enc.space], { dimension: enc.dim, size: h.index.sizes[enc.space] ?? 0, model: enc.modelId });
  }
  assert.equal(h.usearch.reachable, true);
  // The fields other code reads stay where they were.
  assert.equal(h.store.driver, store);
  assert.equal(h.queue.backend, queue);
}

describe('health resource: seed 004 shape (embedded: PGlite, in-process queue)', () => {
  let f: ServerFixture;
  useEmbeddedServer((x) => (f = x));

  test('resources/list advertises version 2 in _meta, the body carries the seed fields, /healthz the same', async () => {
    const listed = (await f.client.listResources()).resources.find((r) => r.uri === 'knowledge://health') as any;
    // The SDK client keeps `_meta`; the top-level copy is checked on the raw wire (wire.test.ts).
    assert.equal(listed._meta.version, 2);
    const stored = await call(f.client, 'store', { content: 'The health check reads one shape.' });
    assert.equal(stored.isError, undefined);
    const h = await readHealth(f.client);
    assertSeedShape(h, 'pglite', 'in-process');
    assert.equal(h.postgres, undefined, 'only the running store has a section');
    assert.ok(h.pglite.last_tx_id >= 1);
    const http = (await (await fetch(`${f.server.baseUrl}/healthz`)).json()) as any;
    assert.equal(http.embedding_model, h.embedding_model);
    assert.equal(http.pglite.collection, h.pglite.collection);
  });
});

test('health resource: seed 004 shape on Postgres and BullMQ', { skip: !DATABASE_URL || !REDIS_URL ? 'DATABASE_URL and REDIS_URL not set' : false }, async (t) => {
  const dbName = `cg_e2e_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = postgres(DATABASE_URL!, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${dbName}`);
  const url = new URL(DATABASE_URL!);
  url.pathname = `/${dbName}`;
  const dir = await tempDir();
  const server = await startServe(childEnv({ DATABASE_URL: url.toString(), REDIS_URL, CONTEXT_GRAPH_QUEUE: `cg-e2e-${randomUUID()}`, CONTEXT_GRAPH_DATA_DIR: dir.path }));
  const client = await httpClient(server.mcpUrl);
  t.after(async () => {
    await client.close();
    await server.stop();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
    await dir.remove();
  });
  const h = await readHealth(client);
  assertSeedShape(h, 'postgres', 'bullmq');
  assert.equal(h.postgres.collection, 'public.embeddings');
  assert.equal(h.pglite, undefined);
});
