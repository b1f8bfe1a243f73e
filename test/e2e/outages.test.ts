import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { test, type TestContext } from 'node:test';
import postgres from 'postgres';
import { call, childEnv, httpClient, runCli, startServe, tempDir, toolError } from '../helpers/cli.js';
import { TcpProxy, ThrowawayRedis } from '../helpers/faults.js';

const DATABASE_URL = process.env.DATABASE_URL;
const skip = !DATABASE_URL ? 'DATABASE_URL not set' : false;
/** Short, so the test spends little time in stalls; the default is 10 s. */
const DEADLINE_MS = '2000';
/** How long Redis stays down during the write stream (issue 16: 20 s). */
const OUTAGE_MS = 20_000;

interface Health {
  status: string;
  problems: string[];
  store: { status: string };
  queue: { status: string };
  outbox: { depth: number } | null;
  index: { sizes: Record<string, number> };
}

/** A database of its own, dropped afterwards. */
async function scratchDatabase(t: TestContext): Promise<URL> {
  const name = `cg_faults_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = postgres(DATABASE_URL!, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  t.after(async () => {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  });
  const url = new URL(DATABASE_URL!);
  url.pathname = `/${name}`;
  return url;
}

async function health(baseUrl: string): Promise<{ code: number; body: Health }> {
  const res = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(5_000) });
  return { code: res.status, body: (await res.json()) as Health };
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(500);
  }
}

test('Redis killed, and restarted empty, during a write stream: every acknowledged write becomes searchable, no restart', { skip, timeout: 240_000 }, async (t) => {
  const redis = await ThrowawayRedis.start();
  t.after(() => redis.kill());
  const db = await scratchDatabase(t);
  const dir = await tempDir();
  t.after(() => dir.remove());
  const env = childEnv({
    DATABASE_URL: db.toString(),
    REDIS_URL: redis.url,
    CONTEXT_GRAPH_QUEUE: `cg-faults-${randomUUID()}`,
    CONTEXT_GRAPH_DATA_DIR: dir.path,
    CONTEXT_GRAPH_DEPENDENCY_DEADLINE_MS: DEADLINE_MS,
  });
  const server = await startServe(env);
  t.after(() => server.stop());
  const client = await httpClient(server.mcpUrl);
  t.after(() => client.close());

  const acked: string[] = [];
  const store = async (label: string, i: number) => {
    const r = await call(client, 'store', { content: `${label} note ${i}: the ${label} sensor ${i} reads ${randomUUID().slice(0, 8)}` });
    assert.equal(toolError(r), undefined, `store ${label} ${i} failed: ${JSON.stringify(r.content)}`);
    const s = r.structuredContent as { id: string; keyword_searchable: boolean; embedding_job_id: string | null };
    acked.push(s.id);
    return { ...s, markdown: (r.content[0] as { text: string }).text };
  };

  // No worker yet: these jobs wait in Redis, and are lost when it dies.
  for (let i = 0; i < 15; i++) await store('queued', i);
  await redis.kill();

  // Redis down for 20 s (the outage): writes are still acknowledged, keyword-searchable
  // at once, and the reply says the queue is down.
  const downAt = Date.now();
  const during = [];
  for (let i = 0; i < 15 || Date.now() - downAt < OUTAGE_MS; i++) during.push(await store('outage', i));
  const last = during[during.length - 1]!;
  assert.equal(last.embedding_job_id, null);
  assert.equal(last.keyword_searchable, true);
  assert.match(last.markdown, /queue is unavailable/);
  const found = await call(client, 'search', { query: `outage sensor ${during.length - 1}` });
  assert.ok(JSON.stringify(found.structuredContent).includes(last.id), 'keyword search finds a memory stored while Redis is down');

  const down = await health(server.baseUrl);
  assert.equal(down.code, 200, 'the product still serves: degraded, not down');
  assert.equal(down.body.status, 'degraded');
  assert.equal(down.body.queue.status, 'down');
  assert.ok(
    down.body.problems.some((p) => /job queue/.test(p)),
    down.body.problems.join('; '),
  );

  // Redis back, empty, after the outage; a worker starts; the stream goes on.
  const outageMs = Date.now() - downAt;
  await redis.restart();
  const recoveredAt = Date.now();
  const worker = runCli(['worker', '--concurrency', '2'], env);
  t.after(() => worker.stop());
  for (let i = 0; i < 10; i++) await store('after', i);

  const healed = await waitFor(
    'every acknowledged write embedded',
    async () => {
      const h = await health(server.baseUrl);
      return h.body.outbox?.depth === 0 && (h.body.index.sizes.E1 ?? 0) >= acked.length ? h.body : undefined;
    },
    90_000,
  ).catch((err: Error) => assert.fail(`${err.message}; worker stderr:\n${worker.stderr()}\nserver stderr:\n${server.stderr()}`));
  assert.equal(healed.status, 'ok', healed.problems.join('; '));
  t.diagnostic(
    `${acked.length} acknowledged writes (15 queued then lost, ${during.length} during the ${(outageMs / 1000).toFixed(1)} s outage), all embedded ${((Date.now() - recoveredAt) / 1000).toFixed(1)} s after Redis came back`,
  );
  assert.equal(acked.length, 15 + during.length + 10);
  // A vector signal for a memory whose job was lost with Redis: only the outbox could have re-enqueued it.
  const r = await call(client, 'query', { query: 'queued note 3: the queued sensor 3 reads' });
  const hit = (r.structuredContent as { items: Array<{ id: string; signals: Record<string, unknown> }> }).items.find((i) => i.id === acked[3]);
  assert.ok(hit?.signals.E1, 'the lost job was re-enqueued and embedded');
});

test('a stalled Redis and a stalled or cut Postgres give errors, not hangs; /healthz names the dependency and recovers', { skip, timeout: 240_000 }, async (t) => {
  const redis = await ThrowawayRedis.start();
  t.after(() => redis.kill());
  const db = await scratchDatabase(t);
  const proxy = await TcpProxy.start({ host: db.hostname, port: Number(db.port || 5432) });
  t.after(() => proxy.close());
  const viaProxy = new URL(db.toString());
  viaProxy.hostname = '127.0.0.1';
  viaProxy.port = String(proxy.port);
  const dir = await tempDir();
  t.after(() => dir.remove());
  const server = await startServe(
    childEnv({
      DATABASE_URL: viaProxy.toString(),
      REDIS_URL: redis.url,
      CONTEXT_GRAPH_QUEUE: `cg-faults-${randomUUID()}`,
      CONTEXT_GRAPH_DATA_DIR: dir.path,
      CONTEXT_GRAPH_DEPENDENCY_DEADLINE_MS: DEADLINE_MS,
    }),
  );
  t.after(() => server.stop());
  const client = await httpClient(server.mcpUrl);
  t.after(() => client.close());
  assert.equal((await health(server.baseUrl)).body.status, 'ok');

  // Redis frozen: the write commits and says the queue is unavailable instead of hanging.
  redis.pause();
  let started = Date.now();
  const stored = await call(client, 'store', { content: 'written while Redis is frozen' });
  t.diagnostic(`Redis frozen: store answered in ${Date.now() - started} ms (deadline ${DEADLINE_MS} ms)`);
  assert.equal(toolError(stored), undefined);
  assert.equal((stored.structuredContent as { embedding_job_id: string | null }).embedding_job_id, null);
  started = Date.now();
  const frozen = await health(server.baseUrl);
  t.diagnostic(`Redis frozen: /healthz answered ${frozen.code} (${frozen.body.status}, queue ${frozen.body.queue.status}) in ${Date.now() - started} ms`);
  assert.equal(frozen.body.queue.status, 'down');
  assert.ok(
    frozen.body.problems.some((p) => /job queue/.test(p)),
    frozen.body.problems.join('; '),
  );
  assert.equal(frozen.body.status, 'degraded');
  redis.resume();

  for (const fault of ['stall', 'cut'] as const) {
    proxy[fault]();
    started = Date.now();
    const failed = await call(client, 'store', { content: `written while Postgres is ${fault}` });
    t.diagnostic(`Postgres ${fault}: store answered ${toolError(failed)?.code} in ${Date.now() - started} ms`);
    assert.equal(toolError(failed)?.code, 'DB_UNAVAILABLE', JSON.stringify(failed.content));
    assert.equal(toolError(failed)?.retryable, true);
    const read = await call(client, 'search', { query: 'frozen' });
    assert.equal(toolError(read)?.code, 'DB_UNAVAILABLE', JSON.stringify(read.content));
    started = Date.now();
    const h = await health(server.baseUrl);
    t.diagnostic(`Postgres ${fault}: /healthz answered ${h.code} in ${Date.now() - started} ms`);
    assert.equal(h.code, 503, `Postgres ${fault}: /healthz says the product cannot serve`);
    assert.equal(h.body.status, 'down');
    assert.equal(h.body.store.status, 'down');
    assert.ok(h.body.problems.some((p) => /store/.test(p)));

    proxy.heal();
    await waitFor('the store to answer again', async () => ((await health(server.baseUrl)).body.store.status === 'up' ? true : undefined), 60_000);
    const again = await call(client, 'store', { content: `written after Postgres was ${fault} and healed` });
    assert.equal(toolError(again), undefined, JSON.stringify(again.content));
  }
});
