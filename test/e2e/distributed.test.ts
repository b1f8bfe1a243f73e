import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { test, type TestContext } from 'node:test';
import postgres from 'postgres';
import { call, childEnv, httpClient, runCli, startServe, tempDir } from '../helpers/cli.js';

const DATABASE_URL = process.env.DATABASE_URL;
const REDIS_URL = process.env.REDIS_URL;

const SKIP = !DATABASE_URL || !REDIS_URL ? 'DATABASE_URL and REDIS_URL not set' : false;

/** A front end and a worker on a database and a queue of their own, so parallel runs cannot interfere. */
async function distributedDeployment(t: TestContext): Promise<{ server: Awaited<ReturnType<typeof startServe>>; worker: ReturnType<typeof runCli> }> {
  const dbName = `cg_e2e_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = postgres(DATABASE_URL!, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${dbName}`);
  const url = new URL(DATABASE_URL!);
  url.pathname = `/${dbName}`;
  const dir = await tempDir();
  const env = childEnv({
    DATABASE_URL: url.toString(),
    REDIS_URL,
    CONTEXT_GRAPH_QUEUE: `cg-e2e-${randomUUID()}`,
    CONTEXT_GRAPH_DATA_DIR: dir.path,
  });
  const server = await startServe(env);
  const worker = runCli(['worker', '--concurrency', '2'], env);
  t.after(async () => {
    await server.stop();
    await worker.stop();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
    await dir.remove();
  });
  return { server, worker };
}

test('with DATABASE_URL and REDIS_URL, a separate worker process embeds and the memory becomes searchable', { skip: SKIP }, async (t) => {
  const { server, worker } = await distributedDeployment(t);
  const health = (await (await fetch(`${server.baseUrl}/healthz`)).json()) as any;
  assert.equal(health.store.driver, 'postgres');
  assert.equal(health.queue.backend, 'bullmq');
  assert.equal(health.queue.consumer, 'workers', 'the front end leaves embedding to workers');

  const client = await httpClient(server.mcpUrl);
  t.after(() => client.close());
  const stored = await call(client, 'store', { content: 'Distributed mode: the greenhouse sensors report humidity every ten minutes.' });
  const s = stored.structuredContent as { id: string; searchable: boolean };
  assert.equal(s.searchable, false, 'distributed store answers without waiting for the worker');

  // The vector signal can only come from the worker's embedding reaching our index replica.
  const deadline = Date.now() + 30_000;
  let signals: Record<string, unknown> | undefined;
  while (Date.now() < deadline) {
    const r = await call(client, 'query', { query: 'how often do greenhouse sensors report humidity?' });
    const first = (r.structuredContent as { items: Array<{ id: string; signals: Record<string, unknown> }> }).items[0];
    if (first?.id === s.id && first.signals.E1) {
      signals = first.signals;
      break;
    }
    await sleep(200);
  }
  assert.ok(signals, `the memory never became vector-searchable; worker stderr:\n${worker.stderr()}`);
  // E9 is embedded and indexed even while search gives it no weight.
  const after = (await (await fetch(`${server.baseUrl}/healthz`)).json()) as { index: { sizes: Record<string, number> } };
  for (const space of ['E1', 'E9', 'E13']) assert.ok((after.index.sizes[space] ?? 0) >= 1, `${space} was embedded and indexed`);
});

test('GET /api/jobs/{id}/events on the front end follows a job that a worker process ran', { skip: SKIP }, async (t) => {
  const { server } = await distributedDeployment(t);
  const client = await httpClient(server.mcpUrl);
  t.after(() => client.close());
  for (const content of ['The pump failed because the seal wore out.', 'So the greenhouse flooded overnight.']) {
    await call(client, 'store', { content, project_id: 'farm', source_uri: 'log://farm' });
  }
  let jobId: string | undefined;
  const built = await client.callTool({ name: 'build_edges', arguments: { project_id: 'farm' } }, undefined, {
    onprogress: (p) => (jobId ??= /\(job ([^)]+)\)$/.exec(p.message ?? '')?.[1]),
  });
  assert.equal((built.structuredContent as any).memories, 2, JSON.stringify(built.content));
  assert.ok(jobId, 'progress named the job');
  // Finished on the worker: the front end answers its outcome from the queue's record.
  const res = await fetch(`${server.baseUrl}/api/jobs/${encodeURIComponent(jobId)}/events`);
  assert.equal(res.status, 200);
  const text = await res.text();
  assert.match(text, /event: completed\ndata: .*"memories":2/);
  assert.equal((await fetch(`${server.baseUrl}/api/jobs/no-such-job/events`)).status, 404);
});
