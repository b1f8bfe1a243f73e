import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, childEnv, stdioClient, tempDir } from '../helpers/cli.js';

test('over stdio, store then query finds the memory first, and stdout carries only JSON-RPC', async () => {
  const dir = await tempDir();
  const { client, transport } = await stdioClient(childEnv({ CONTEXT_GRAPH_DATA_DIR: dir.path, LOG_LEVEL: 'info' }));
  try {
    await call(client, 'store', { content: 'The cat sleeps on the warm windowsill every afternoon.' });
    const stored = await call(client, 'store', { content: 'Invoices are archived to cold storage after ninety days.', topic: 'billing' });
    const id = (stored.structuredContent as { id: string }).id;
    const result = await call(client, 'query', { query: 'where do old invoices go?', limit: 3 });
    const items = (result.structuredContent as { items: Array<{ id: string }> }).items;
    assert.equal(items[0]?.id, id);
    // Logs at info level went to stderr; had any reached stdout, the client would have failed to parse.
    assert.ok(transport.stderr, 'stderr is piped');
  } finally {
    await client.close();
    await dir.remove();
  }
});
