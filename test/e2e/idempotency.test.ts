import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { call, childEnv, httpClient, startServe, tempDir, toolError } from '../helpers/cli.js';
import { SLOW } from '../helpers/slow.js';

interface Stored {
  id: string;
  tx_id: number;
  replayed: boolean;
}

test('a store retried with its idempotency_key after a crash between commit and ack writes nothing twice', { timeout: 180_000 }, async (t) => {
  const dir = await tempDir();
  t.after(() => dir.remove());
  const env = childEnv({ CONTEXT_GRAPH_DATA_DIR: dir.path });
  const content = `The standby generator is tested on the first Monday of each month (${randomUUID().slice(0, 8)}).`;
  const key = randomUUID();

  // The write commits; the server dies before the client can rely on the answer.
  const first = await startServe(env);
  const c1 = await httpClient(first.mcpUrl);
  const r1 = await call(c1, 'store', { content, idempotency_key: key });
  assert.equal(toolError(r1), undefined);
  const a = r1.structuredContent as unknown as Stored;
  assert.equal(a.replayed, false);
  first.proc.kill('SIGKILL');
  await first.exited;

  const second = await startServe(env);
  t.after(() => second.stop());
  const c2 = await httpClient(second.mcpUrl);
  t.after(() => c2.close());
  // The client retries, several times at once for good measure.
  const retries = await Promise.all([1, 2, 3, 4].map(() => call(c2, 'store', { content, idempotency_key: key })));
  for (const r of retries) {
    assert.equal(toolError(r), undefined, JSON.stringify(r.content));
    const b = r.structuredContent as unknown as Stored;
    assert.deepEqual({ id: b.id, tx_id: b.tx_id, replayed: b.replayed }, { id: a.id, tx_id: a.tx_id, replayed: true });
    assert.match((r.content[0] as { text: string }).text, /nothing was written now/);
  }
  const found = (await call(c2, 'query', { query: content, limit: 10 })).structuredContent as { items: Array<{ id: string; content: string }> };
  assert.equal(found.items.filter((i) => i.content === content).length, 1, 'one memory, not one per retry');

  // A new key for the same text is a new write (keys, not contents, decide), and concurrent
  // first uses of one key still make one write.
  const fresh = randomUUID();
  const racing = await Promise.all([1, 2, 3].map(() => call(c2, 'store', { content: `${content} Again.`, idempotency_key: fresh })));
  const ids = new Set(racing.map((r) => (r.structuredContent as unknown as Stored).id));
  assert.equal(ids.size, 1, 'concurrent calls with one new key answer one write');
  assert.equal(racing.filter((r) => !(r.structuredContent as unknown as Stored).replayed).length, 1, 'exactly one of them wrote');
});

test('20 keyed writes in flight at a kill -9, all retried with their keys on the restarted server: each is stored exactly once', { timeout: 180_000, skip: SLOW }, async (t) => {
  const dir = await tempDir();
  t.after(() => dir.remove());
  const env = childEnv({ CONTEXT_GRAPH_DATA_DIR: dir.path });
  const project = `crash-${randomUUID().slice(0, 8)}`;
  const writes = Array.from({ length: 20 }, (_, i) => ({
    content: `Crash drill ${i}: valve ${i} was inspected (${randomUUID().slice(0, 8)}).`,
    project_id: project,
    idempotency_key: randomUUID(),
  }));

  const first = await startServe(env);
  const c1 = await httpClient(first.mcpUrl);
  let acked = 0;
  const inFlight = writes.map((w) =>
    call(c1, 'store', w).then(
      (r) => (r.isError ? undefined : ((acked += 1), r)),
      () => undefined,
    ),
  );
  // Kill as soon as the first answers arrive: the rest are committed, half-done or not started.
  // A server that answers none fails the test here rather than keeping it (and the run) alive forever.
  for (const deadline = Date.now() + 60_000; acked < 3; await new Promise((r) => setTimeout(r, 5))) {
    if (Date.now() > deadline) assert.fail(`only ${acked} of 20 writes answered within 60 s`);
  }
  first.proc.kill('SIGKILL');
  await first.exited;
  const answeredBeforeKill = (await Promise.all(inFlight)).filter(Boolean).length;
  void c1.close().catch(() => {});

  const second = await startServe(env);
  t.after(() => second.stop());
  const c2 = await httpClient(second.mcpUrl);
  t.after(() => c2.close());
  // Committed before the kill: its key is in the database (the count of distinct rows now).
  const list = async () =>
    ((await call(c2, 'query', { query: 'crash drill valve inspected', project_id: project, limit: 50 })).structuredContent as { items: Array<{ content: string }> }).items;
  // A write committed without its embed job is embedded from the backlog at start, and search
  // finds it only once its vectors are in: count when nothing is owed and the index has pulled.
  for (const deadline = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 100))) {
    const health = (await (await fetch(`${second.baseUrl}/healthz`)).json()) as { outbox: { depth: number } | null };
    if (health.outbox?.depth === 0) break;
    if (Date.now() > deadline) assert.fail(`vectors still owed 60 s after the restart: ${JSON.stringify(health.outbox)}`);
  }
  let committedAtKill = (await list()).length;
  for (let again = -1; again !== committedAtKill;) {
    // The index replica follows the feed within a second.
    await new Promise((r) => setTimeout(r, 1_200));
    [again, committedAtKill] = [committedAtKill, (await list()).length];
  }
  const retries = await Promise.all(writes.map((w) => call(c2, 'store', w)));
  for (const r of retries) assert.equal(toolError(r), undefined, JSON.stringify(r.content));
  const replayed = retries.filter((r) => (r.structuredContent as unknown as Stored).replayed).length;
  const listed = await list();
  t.diagnostic(
    `answered before kill -9: ${answeredBeforeKill}; committed at the kill: ${committedAtKill} (${committedAtKill - answeredBeforeKill} without an answer); retries answered from the first write: ${replayed}; memories now: ${listed.length}`,
  );
  assert.equal(replayed, committedAtKill, 'every write committed before the kill is answered from its key, not written again');
  assert.equal(listed.length, writes.length, 'one memory per key: 20, not more');
  assert.deepEqual(listed.map((i) => i.content).sort(), writes.map((w) => w.content).sort());
});
