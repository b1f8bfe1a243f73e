import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { childEnv, startServe, tempDir } from '../helpers/cli.js';
import { openEventStream, startDropProxy } from '../helpers/sse.js';

/** Seed 001 §6.8 (TC-SSE-001…004), EC-MCP-005 and −32016, through the SDK's SSEClientTransport. */

/**
 * The SDK client drops the Last-Event-ID header when its EventSource reconnects, so it names its
 * session with a random resume_key in the URL instead (the README's snippet does the same).
 */
async function sseClient(baseUrl: string): Promise<{ client: Client; transport: SSEClientTransport }> {
  const transport = new SSEClientTransport(new URL(`/sse?resume_key=${randomUUID()}`, baseUrl));
  const client = new Client({ name: 'test-sse', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

function json(result: CallToolResult): any {
  assert.ok(!result.isError, JSON.stringify(result.content));
  return result.structuredContent;
}

async function rpc(baseUrl: string, endpoint: string, message: object): Promise<Response> {
  return fetch(new URL(endpoint, baseUrl), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message) });
}

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

describe('legacy HTTP+SSE transport (/sse + /messages)', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let server: Awaited<ReturnType<typeof startServe>>;

  before(async () => {
    dir = await tempDir();
    // A short heartbeat and grace so the suite sees several beats and an expiry without waiting
    // the production 30 s / 60 s; nothing below asserts how long anything took.
    server = await startServe(
      childEnv({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_TOOLSETS: '', CONTEXT_GRAPH_SSE_HEARTBEAT_MS: '100', CONTEXT_GRAPH_SSE_GRACE_MS: '1500' }),
    );
  });
  after(async () => {
    await server.stop();
    await dir.remove();
  });

  test('TC-SSE-001: GET /sse sends the endpoint event, a heartbeat at once, and heartbeats after it', async () => {
    const stream = await openEventStream(`${server.baseUrl}/sse`);
    try {
      const endpoint = await stream.next((e) => e.event === 'endpoint');
      assert.match(endpoint.data, /^\/messages\?sessionId=[\w-]+$/);
      for (let i = 0; i < 3; i++) {
        const beat = await stream.next((e) => e.event === 'heartbeat');
        const data = JSON.parse(beat.data);
        assert.equal(data.type, 'ping');
        assert.ok(Number.isInteger(data.timestamp) && data.timestamp > 1_700_000_000, `unix seconds: ${beat.data}`);
      }
    } finally {
      stream.close();
    }
  });

  test('TC-SSE-002: a request POSTed to /messages is answered as a `message` event on the stream', async () => {
    const stream = await openEventStream(`${server.baseUrl}/sse`);
    try {
      const endpoint = (await stream.next((e) => e.event === 'endpoint')).data;
      const accepted = await rpc(server.baseUrl, endpoint, INIT);
      assert.equal(accepted.status, 202);
      const answer = await stream.next((e) => e.event === 'message');
      const body = JSON.parse(answer.data);
      assert.equal(body.id, 1);
      assert.equal(body.result.serverInfo.name, 'context-graph');
      assert.match(answer.id!, /^[\w-]+\.\d+$/, 'message events carry ids for Last-Event-ID');
    } finally {
      stream.close();
    }
  });

  test('the same tools as /mcp through the SDK SSE client: store, then search finds it', async () => {
    const { client } = await sseClient(server.baseUrl);
    try {
      const tools = await client.listTools();
      assert.ok(tools.tools.some((t) => t.name === 'store'));
      const stored = json(
        (await client.callTool({ name: 'store', arguments: { content: 'SSE test: the lighthouse keeper logs the tides at dawn.', topic: 'lighthouse' } })) as CallToolResult,
      );
      const found = json((await client.callTool({ name: 'search', arguments: { query_text: 'lighthouse tides' } })) as CallToolResult);
      assert.ok(found.hits.some((h: { id: string }) => h.id === stored.id));
    } finally {
      await client.close();
    }
  });

  test('TC-SSE-003: after a dropped connection the client reconnects into the same session', async () => {
    const proxy = await startDropProxy(server.baseUrl);
    const { client } = await sseClient(proxy.url);
    try {
      // Session state: the graph toolset enabled before the drop is still enabled after it.
      await client.callTool({ name: 'toolsets', arguments: { enable: ['graph'] } });
      const before = (await client.listTools()).tools.map((t) => t.name).sort();
      proxy.drop();
      // Let the client's HTTP pool see its sockets close, so the next POST opens a new one
      // (the event stream, meanwhile, is still waiting to reconnect).
      await sleep(100);
      // Sent while the stream is down: the answer waits in the session and is replayed.
      const after = (await client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(after, before);
      assert.ok(after.includes('relate'), 'graph toolset still enabled: the same session');
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  test('Last-Event-ID replays the messages produced while the stream was down', async () => {
    const first = await openEventStream(`${server.baseUrl}/sse`);
    const endpoint = (await first.next((e) => e.event === 'endpoint')).data;
    await rpc(server.baseUrl, endpoint, INIT);
    const initAnswer = await first.next((e) => e.event === 'message');
    first.close();
    await rpc(server.baseUrl, endpoint, { jsonrpc: '2.0', method: 'notifications/initialized' });
    const posted = await rpc(server.baseUrl, endpoint, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    assert.equal(posted.status, 202, 'the session accepts messages while its stream is down');
    await sleep(200);
    const second = await openEventStream(`${server.baseUrl}/sse`, { 'last-event-id': initAnswer.id! });
    try {
      assert.equal((await second.next((e) => e.event === 'endpoint')).data, endpoint, 'same session');
      const replayed = JSON.parse((await second.next((e) => e.event === 'message')).data);
      assert.equal(replayed.id, 2);
      assert.ok(replayed.result.tools.length > 0);
    } finally {
      second.close();
    }
  });

  test('TC-SSE-004: search streams partial results (per space, then fused) as events before its answer', async () => {
    const { client } = await sseClient(server.baseUrl);
    await client.callTool({ name: 'store', arguments: { content: 'Streaming test: the orchard harvest starts in September.', topic: 'orchard' } });
    await client.close();
    // Raw, because the SDK client handles a notification a tick later than the response that
    // follows it in the same read, and so drops progress that arrives together with the answer.
    const stream = await openEventStream(`${server.baseUrl}/sse`);
    try {
      const endpoint = (await stream.next((e) => e.event === 'endpoint')).data;
      await rpc(server.baseUrl, endpoint, INIT);
      await stream.next((e) => e.event === 'message');
      await rpc(server.baseUrl, endpoint, { jsonrpc: '2.0', method: 'notifications/initialized' });
      await rpc(server.baseUrl, endpoint, {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'search', arguments: { query_text: 'orchard harvest' }, _meta: { progressToken: 'tc4' } },
      });
      const progress: Array<{ progress: number; total: number; message: string }> = [];
      for (;;) {
        const message = JSON.parse((await stream.next((e) => e.event === 'message')).data);
        if (message.id === 7) {
          assert.ok(message.result.structuredContent.hits.length > 0);
          break;
        }
        assert.equal(message.params.progressToken, 'tc4');
        progress.push(message.params);
      }
      assert.ok(
        progress.some((p) => /candidates/.test(p.message)),
        JSON.stringify(progress),
      );
      const last = progress.at(-1)!;
      assert.equal(last.progress, last.total);
      assert.match(last.message, /fused: [1-9]\d* hits \(best /);
    } finally {
      stream.close();
    }
  });

  test('an SDK client whose session expired while it was away gets −32016', async () => {
    const proxy = await startDropProxy(server.baseUrl);
    const { client } = await sseClient(proxy.url);
    try {
      await client.listTools();
      await proxy.close();
      await sleep(2_500);
      const restarted = await startDropProxy(server.baseUrl, Number(new URL(proxy.url).port));
      try {
        await assert.rejects(client.listTools(), /-32016/);
      } finally {
        await restarted.close();
      }
    } finally {
      await client.close();
    }
  });

  test('a session past its reconnect grace answers −32016 SSE_SESSION_EXPIRED, on GET and POST', async () => {
    const stream = await openEventStream(`${server.baseUrl}/sse`);
    const endpoint = (await stream.next((e) => e.event === 'endpoint')).data;
    const sessionId = new URL(endpoint, server.baseUrl).searchParams.get('sessionId')!;
    stream.close();
    let post: Response;
    do {
      await sleep(250);
      post = await rpc(server.baseUrl, endpoint, { jsonrpc: '2.0', id: 9, method: 'ping' });
    } while (post.status === 202);
    assert.equal(post.status, 404);
    assert.equal(((await post.json()) as any).error.code, -32016);
    const reopened = await openEventStream(`${server.baseUrl}/sse?sessionId=${sessionId}`);
    assert.equal(reopened.status, 404);
    assert.equal(JSON.parse(reopened.body).error.code, -32016);
  });
});

describe('SIGTERM with an SSE client connected', () => {
  test('serve closes the sessions and exits cleanly', async () => {
    const dir = await tempDir();
    const server = await startServe(childEnv({ CONTEXT_GRAPH_DATA_DIR: dir.path }));
    try {
      const stream = await openEventStream(`${server.baseUrl}/sse`);
      await stream.next((e) => e.event === 'endpoint');
      server.proc.kill('SIGTERM');
      assert.equal(await server.exited, 0);
      await assert.rejects(
        stream.next((e) => e.event === 'message'),
        /ended/,
      );
    } finally {
      await server.stop();
      await dir.remove();
    }
  });
});
