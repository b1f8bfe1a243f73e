import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, childEnv, httpClient, runCli, startServe, stdioClient, tempDir } from '../helpers/cli.js';

test('a second process on a data directory in use never opens it', async (t) => {
  const dir = await tempDir();
  const env = childEnv({ CONTEXT_GRAPH_DATA_DIR: dir.path });
  const owner = await startServe(env);
  t.after(async () => {
    await owner.stop();
    await dir.remove();
  });

  await t.test('a second `serve` exits at once, naming the directory and the owner pid', async () => {
    const second = runCli(['serve', '--port', '0'], env);
    const code = await second.exited;
    assert.equal(code, 1);
    assert.match(second.stderr(), new RegExp(`in use by pid ${owner.proc.pid}`));
    assert.ok(second.stderr().includes(dir.path));
  });

  await t.test('a `stdio` client relays to the owner, so both share one memory', async () => {
    const { client } = await stdioClient(env, 'relayed');
    const viaHttp = await httpClient(owner.mcpUrl);
    try {
      const stored = await call(client, 'store', { content: 'Relay test: the shared memory holds this note about lighthouse keepers.' });
      assert.equal(stored.isError, undefined, JSON.stringify(stored.content));
      const id = (stored.structuredContent as { id: string }).id;
      const found = await call(viaHttp, 'query', { query: 'lighthouse keepers note' });
      assert.equal((found.structuredContent as { items: Array<{ id: string }> }).items[0]?.id, id);
      // And the other way round: the relayed client reads what the HTTP client wrote.
      const other = await call(viaHttp, 'store', { content: 'Written over HTTP: the orchard is pruned in February.' });
      const otherId = (other.structuredContent as { id: string }).id;
      const back = await call(client, 'query', { query: 'when is the orchard pruned?' });
      assert.equal((back.structuredContent as { items: Array<{ id: string }> }).items[0]?.id, otherId);
    } finally {
      await client.close();
      await viaHttp.close();
    }
  });

  await t.test('after the owner stops, a new server takes the directory and finds the data', async () => {
    await owner.stop();
    const next = await startServe(env);
    const client = await httpClient(next.mcpUrl);
    try {
      const found = await call(client, 'query', { query: 'lighthouse keepers' });
      assert.ok((found.structuredContent as { items: unknown[] }).items.length >= 1);
    } finally {
      await client.close();
      await next.stop();
    }
  });
});
