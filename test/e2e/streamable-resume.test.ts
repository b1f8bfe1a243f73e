import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import postgres from 'postgres';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { childEnv, startServe, tempDir } from '../helpers/cli.js';
import { openEventStream, startDropProxy, type SseEvent } from '../helpers/sse.js';

/** Resumable Streamable HTTP: Last-Event-ID replay on POST streams and the standalone GET stream. */

const PROTOCOL = '2025-11-25';
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const isMessage = (e: SseEvent) => e.data !== '';

/**
 * Resumes with Last-Event-ID. The server may not have seen the dropped stream close yet and
 * answer 409 (stream still attached); a client backs off and retries, and so does this.
 */
async function resume(mcpUrl: string, headers: Record<string, string>, lastEventId: string): Promise<Awaited<ReturnType<typeof openEventStream>>> {
  for (let i = 0; ; i++) {
    const stream = await openEventStream(mcpUrl, { ...headers, 'last-event-id': lastEventId });
    if (stream.status !== 409 || i === 50) return stream;
    await sleep(100);
  }
}

function toolsetsCall(id: number, change: 'enable' | 'disable'): { id: number; [k: string]: unknown } {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'toolsets', arguments: { [change]: ['graph'] } } };
}

/** A raw session: initialize, initialized; answers the session id and a way to send more. */
async function rawSession(mcpUrl: string): Promise<{ id: string; headers: Record<string, string> }> {
  const init = await openEventStream(mcpUrl, {}, INIT);
  const id = init.headers.get('mcp-session-id')!;
  await init.next(isMessage);
  init.close();
  const headers = { 'mcp-session-id': id, 'mcp-protocol-version': PROTOCOL };
  await fetch(mcpUrl, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  return { id, headers };
}

/** Starts a search on a POST stream, drops the stream after its priming event, answers that event's id. */
async function dropAfterPriming(mcpUrl: string, headers: Record<string, string>, requestId: number): Promise<string> {
  const call = { jsonrpc: '2.0', id: requestId, method: 'tools/call', params: { name: 'search', arguments: { query_text: 'resumable streams' } } };
  const stream = await openEventStream(mcpUrl, headers, call);
  const priming = await stream.next((e) => e.id !== undefined);
  stream.close();
  assert.match(priming.id!, /\|\d+$/);
  return priming.id!;
}

describe('resumable Streamable HTTP (embedded)', { timeout: 120_000 }, () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let server: Awaited<ReturnType<typeof startServe>>;

  before(async () => {
    dir = await tempDir();
    server = await startServe(childEnv({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_TOOLSETS: '' }));
  });
  after(async () => {
    await server.stop();
    await dir.remove();
  });

  test('a POST stream dropped mid-call: GET with Last-Event-ID delivers the answer', async () => {
    const { headers } = await rawSession(server.mcpUrl);
    const lastEventId = await dropAfterPriming(server.mcpUrl, headers, 2);
    const resumed = await resume(server.mcpUrl, headers, lastEventId);
    try {
      assert.equal(resumed.status, 200);
      const answer = JSON.parse((await resumed.next(isMessage)).data);
      assert.equal(answer.id, 2);
      assert.equal(answer.result.structuredContent.kind, 'search:v1');
    } finally {
      resumed.close();
    }
  });

  test('the standalone GET stream: a notification sent while it was down is replayed', async () => {
    const { headers } = await rawSession(server.mcpUrl);
    const send = async (message: object & { id: number }) => {
      const answer = await openEventStream(server.mcpUrl, headers, message);
      await answer.next((e) => isMessage(e) && JSON.parse(e.data).id === message.id);
      answer.close();
    };
    const standalone = await openEventStream(server.mcpUrl, headers);
    // Switching a toolset announces tools/list_changed on the standalone stream.
    await send(toolsetsCall(3, 'enable'));
    const seen = await standalone.next(isMessage);
    assert.equal(JSON.parse(seen.data).method, 'notifications/tools/list_changed');
    standalone.close();
    await send(toolsetsCall(4, 'disable'));
    const resumed = await resume(server.mcpUrl, headers, seen.id!);
    try {
      assert.equal(resumed.status, 200);
      const replayed = await resumed.next(isMessage);
      assert.equal(JSON.parse(replayed.data).method, 'notifications/tools/list_changed');
      assert.match(replayed.id!, /^_GET_stream\|\d+$/);
      assert.notEqual(replayed.id, seen.id);
    } finally {
      resumed.close();
    }
  });

  test('the SDK client resumes its standalone stream after a drop and gets the missed notification', async () => {
    const proxy = await startDropProxy(server.baseUrl);
    const client = new Client({ name: 'resume', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', proxy.url), {
      reconnectionOptions: { initialReconnectionDelay: 100, maxReconnectionDelay: 1_000, reconnectionDelayGrowFactor: 1.5, maxRetries: 20 },
    });
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    try {
      await client.connect(transport);
      // One notification while connected gives the client an event id to resume from.
      for (let i = 0; i < 100 && changed === 0; i++) {
        if (i % 10 === 0) await client.callTool({ name: 'toolsets', arguments: { [i % 20 === 0 ? 'enable' : 'disable']: ['graph'] } });
        await sleep(100);
      }
      assert.ok(changed > 0, 'the standalone stream is up');
      const before = changed;
      proxy.drop();
      await sleep(50);
      await client.callTool({ name: 'toolsets', arguments: { enable: ['history'] } });
      for (let i = 0; i < 100 && changed === before; i++) await sleep(100);
      assert.equal(changed, before + 1, 'tools/list_changed reached the client through the resumed stream');
    } finally {
      await client.close();
      await proxy.close();
    }
  });
});

const DATABASE_URL = process.env.DATABASE_URL;
const REDIS_URL = process.env.REDIS_URL;

describe('resumption through a second front end (Postgres + Redis)', { timeout: 120_000, skip: !DATABASE_URL || !REDIS_URL ? 'DATABASE_URL and REDIS_URL not set' : false }, () => {
  const dbName = `cg_e2e_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  let admin: postgres.Sql;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let a: Awaited<ReturnType<typeof startServe>>;
  let b: Awaited<ReturnType<typeof startServe>>;

  before(async () => {
    admin = postgres(DATABASE_URL!, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${dbName}`);
    const url = new URL(DATABASE_URL!);
    url.pathname = `/${dbName}`;
    dir = await tempDir();
    const env = childEnv({ DATABASE_URL: url.toString(), REDIS_URL, CONTEXT_GRAPH_QUEUE: `cg-e2e-${randomUUID()}`, CONTEXT_GRAPH_DATA_DIR: dir.path });
    a = await startServe(env);
    b = await startServe(env);
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
    await dir.remove();
  });

  test('a stream dropped on front end A is resumed on front end B from the events in Redis', async () => {
    const { id, headers } = await rawSession(a.mcpUrl);
    const lastEventId = await dropAfterPriming(a.mcpUrl, headers, 2);
    // B never held the session: it replays what A stored, then ends the stream (the client polls).
    let answer: any;
    for (let i = 0; i < 50 && !answer; i++) {
      const resumed = await resume(b.mcpUrl, headers, lastEventId);
      assert.equal(resumed.status, 200);
      assert.equal(resumed.headers.get('mcp-session-id'), id);
      answer = await resumed.next(isMessage).then(
        (e) => JSON.parse(e.data),
        () => undefined,
      );
      if (!answer) await sleep(100);
    }
    assert.equal(answer.id, 2);
    assert.equal(answer.result.structuredContent.kind, 'search:v1');
  });

  test('B still answers 404 for a session nobody stored', async () => {
    const res = await fetch(b.mcpUrl, { headers: { accept: 'text/event-stream', 'mcp-session-id': randomUUID(), 'last-event-id': '_GET_stream|1' } });
    assert.equal(res.status, 404);
  });
});
