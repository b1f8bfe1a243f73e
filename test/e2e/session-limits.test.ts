import assert from 'node:assert/strict';
import { request } from 'node:http';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { childEnv, httpClient, startServe, tempDir } from '../helpers/cli.js';

/** Per-client and global limits on MCP sessions (/mcp and /sse counted together), and idle expiry. */

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

/** An initialize POSTed from a chosen loopback source address, as a second client machine would. */
function initializeFrom(baseUrl: string, localAddress: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const url = new URL('/mcp', baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(INIT));
  });
}

async function sseClient(baseUrl: string): Promise<Client> {
  const client = new Client({ name: 'limits-sse', version: '1.0.0' });
  await client.connect(new SSEClientTransport(new URL(`/sse?resume_key=${randomUUID()}`, baseUrl)));
  return client;
}

describe('session limits', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let server: Awaited<ReturnType<typeof startServe>>;
  const clients: Client[] = [];

  before(async () => {
    dir = await tempDir();
    server = await startServe(
      childEnv({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_MAX_SESSIONS: '3', CONTEXT_GRAPH_MAX_SESSIONS_PER_CLIENT: '2', CONTEXT_GRAPH_TOOLSETS: '' }),
    );
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await server.stop();
    await dir.remove();
  });

  test('one client may hold 2 sessions (/mcp and /sse together); the 3rd is 503 with Retry-After and a JSON-RPC error', async () => {
    clients.push(await httpClient(server.mcpUrl), await sseClient(server.baseUrl));
    const refused = await fetch(server.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(INIT),
    });
    assert.equal(refused.status, 503);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1, `Retry-After: ${refused.headers.get('retry-after')}`);
    const body = (await refused.json()) as any;
    assert.equal(body.jsonrpc, '2.0');
    assert.equal(body.error.code, -32032);
    assert.match(body.error.message, /Too many open sessions from this client \(2\)/);
    const sse = await fetch(`${server.baseUrl}/sse`, { headers: { accept: 'text/event-stream' } });
    assert.equal(sse.status, 503, '/sse counts against the same limit');
    assert.match(((await sse.json()) as any).error.message, /Too many open sessions/);
    // The sessions that were admitted still work.
    assert.ok((await clients[0]!.listTools()).tools.length > 0);
    assert.ok((await clients[1]!.listTools()).tools.length > 0);
  });

  test('another client address gets the last place of the global limit (3), then 503 too', async () => {
    const first = await initializeFrom(server.baseUrl, '127.0.0.2');
    assert.equal(first.status, 200, first.body);
    const second = await initializeFrom(server.baseUrl, '127.0.0.3');
    assert.equal(second.status, 503);
    assert.ok(second.headers['retry-after']);
    assert.match(JSON.parse(second.body).error.message, /Too many open sessions \(3, the server's limit\)/);
  });

  test('ending a session frees its place', async () => {
    const client = clients.shift()!;
    await (client.transport as { terminateSession?: () => Promise<void> }).terminateSession?.();
    await client.close();
    const again = await httpClient(server.mcpUrl);
    clients.push(again);
    assert.ok((await again.listTools()).tools.length > 0);
  });
});

describe('idle sessions', () => {
  test('a session with no request for CONTEXT_GRAPH_SESSION_IDLE_MS is closed, on /mcp and /sse', async () => {
    const dir = await tempDir();
    const server = await startServe(
      childEnv({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_SESSION_IDLE_MS: '1500', CONTEXT_GRAPH_MAX_SESSIONS_PER_CLIENT: '2', CONTEXT_GRAPH_TOOLSETS: '' }),
    );
    const http = await httpClient(server.mcpUrl);
    const sse = await sseClient(server.baseUrl);
    try {
      await http.listTools();
      // Well past the idle time (the sweep runs every quarter of it).
      await sleep(4_000);
      await assert.rejects(http.listTools(), /Session not found/);
      await assert.rejects(sse.listTools(), /-32016|expired/);
      // Their places are free: two new sessions from the same client are admitted.
      const fresh = [await httpClient(server.mcpUrl), await sseClient(server.baseUrl)];
      for (const c of fresh) assert.ok((await c.listTools()).tools.length > 0);
      for (const c of fresh) await c.close();
    } finally {
      await http.close().catch(() => {});
      await sse.close().catch(() => {});
      await server.stop();
      await dir.remove();
    }
  });
});
