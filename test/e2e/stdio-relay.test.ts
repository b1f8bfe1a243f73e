import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, childEnv, stdioClient, tempDir } from '../helpers/cli.js';

/** Calls until the relay has moved to a new owner; every failure on the way must be the retryable −32030. */
async function callThroughSwitch(client: Client, name: string, args: Record<string, unknown>): Promise<{ result: Awaited<ReturnType<typeof call>>; failures: number }> {
  for (let failures = 0; ; failures++) {
    try {
      return { result: await call(client, name, args), failures };
    } catch (err) {
      assert.ok(err instanceof McpError && err.code === -32030, `only the retryable relay error: ${String(err)}`);
      assert.ok(failures < 60, 'the relay found a new owner');
      await sleep(250);
    }
  }
}

test('a relaying stdio client survives its owner exiting: it takes the directory over and keeps the data', { timeout: 120_000 }, async () => {
  const dir = await tempDir();
  const env = childEnv({ CONTEXT_GRAPH_DATA_DIR: dir.path });
  const owner = await stdioClient(env, 'owner');
  const relayed = await stdioClient(env, 'relayed');
  try {
    const stored = await call(relayed.client, 'store', { content: 'Relay test: the night ferry leaves the harbour at 23:40.', topic: 'ferry' });
    const id = (stored.structuredContent as { id: string }).id;

    process.kill(owner.transport.pid!, 'SIGTERM');
    await owner.client.close();

    const { result } = await callThroughSwitch(relayed.client, 'search', { query_text: 'night ferry harbour' });
    const hits = (result.structuredContent as { hits: Array<{ id: string }> }).hits;
    assert.ok(
      hits.some((h) => h.id === id),
      'the write acknowledged before the switch is there',
    );
    const after = await call(relayed.client, 'store', { content: 'Relay test: the day ferry leaves at 08:15.', topic: 'ferry' });
    assert.ok(!after.isError, 'writes work through the new owner');
  } finally {
    await relayed.client.close();
    await owner.client.close().catch(() => {});
    await dir.remove();
  }
});
