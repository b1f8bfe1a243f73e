import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { childEnv, startServe, tempDir } from '../helpers/cli.js';

// Every client of a limit gets its own loopback address (127.0.0.x), so each test sees only its
// own buckets and connections.
interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

// Kept-alive and few: the server allows each client address only a few connections (below).
const agents = new Map<string, Agent>();
const agentFor = (from: string) => agents.get(from) ?? agents.set(from, new Agent({ keepAlive: true, maxSockets: 2, localAddress: from })).get(from)!;

function send(baseUrl: string, opts: { method: string; path: string; from: string; headers?: Record<string, string>; body?: string }): Promise<Answer> {
  const url = new URL(opts.path, baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: opts.method,
        agent: agentFor(opts.from),
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...opts.headers },
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** A raw connection from `from`; resolves with what the server sent before it closed the socket. */
function rawSocket(port: number, from: string): { socket: Socket; closed: Promise<string> } {
  const socket = connect({ host: '127.0.0.1', port, localAddress: from });
  let received = '';
  socket.on('data', (d: Buffer) => (received += d.toString()));
  socket.on('error', () => {});
  return { socket, closed: new Promise((resolve) => socket.once('close', () => resolve(received))) };
}

async function healthzOnceFree(baseUrl: string, from: string): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return (await send(baseUrl, { method: 'GET', path: '/healthz', from })).status;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET' || Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'limits', version: '1' } },
});

describe('limits: rate per session and per client, slow headers and bodies, connections per client', () => {
  let server: Awaited<ReturnType<typeof startServe>>;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let port: number;
  before(async () => {
    dir = await tempDir();
    server = await startServe(
      childEnv({
        CONTEXT_GRAPH_DATA_DIR: dir.path,
        CONTEXT_GRAPH_RATE_LIMIT_PER_SESSION: '2',
        CONTEXT_GRAPH_RATE_LIMIT_PER_CLIENT: '6',
        CONTEXT_GRAPH_RATE_LIMIT_BURST_SECONDS: '1',
        CONTEXT_GRAPH_HTTP_HEADERS_TIMEOUT_MS: '1000',
        CONTEXT_GRAPH_HTTP_REQUEST_TIMEOUT_MS: '2000',
        CONTEXT_GRAPH_MAX_CONNECTIONS_PER_CLIENT: '4',
      }),
    );
    port = Number(new URL(server.baseUrl).port);
  });
  after(async () => {
    for (const a of agents.values()) a.destroy();
    await server.stop();
    await dir.remove();
  });

  test('a session over its rate gets 429 RATE_LIMITED, retryable, with Retry-After; another session is not slowed', { timeout: 60_000 }, async () => {
    const from = '127.0.0.1';
    const init = await send(server.baseUrl, { method: 'POST', path: '/mcp', from, body: INITIALIZE });
    assert.equal(init.status, 200, init.body);
    const session = init.headers['mcp-session-id'] as string;
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const burst = await Promise.all(
      Array.from({ length: 15 }, () =>
        send(server.baseUrl, { method: 'POST', path: '/mcp', from, headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }, body: list }),
      ),
    );
    const refused = burst.filter((a) => a.status === 429);
    assert.ok(
      burst.some((a) => a.status === 200),
      'the bucket lets a burst through',
    );
    assert.ok(refused.length > 0, 'and refuses past it');
    const first = refused[0]!;
    assert.ok(Number(first.headers['retry-after']) >= 1);
    const error = (JSON.parse(first.body) as { error: { code: number; message: string; data: { code: string; retryable: boolean; retry_after_ms: number } } }).error;
    assert.equal(error.code, -32045);
    assert.equal(error.data.code, 'RATE_LIMITED');
    assert.equal(error.data.retryable, true);
    assert.ok(error.data.retry_after_ms > 0);
    assert.match(error.message, /Too many requests in this session/);

    const other = await send(server.baseUrl, { method: 'POST', path: '/mcp', from, body: INITIALIZE });
    assert.equal(other.status, 200, 'a new session has its own bucket');
  });

  test('a client over its rate gets 429 RATE_LIMITED on every route but /healthz', { timeout: 60_000 }, async () => {
    const from = '127.0.0.2';
    const burst = await Promise.all(Array.from({ length: 40 }, () => send(server.baseUrl, { method: 'GET', path: '/api/openapi.json', from })));
    const refused = burst.filter((a) => a.status === 429);
    assert.ok(refused.length > 0 && refused.length < burst.length, `${refused.length} of ${burst.length} refused: ${burst.map((a) => a.status).join(' ')}`);
    const body = JSON.parse(refused[0]!.body) as { code: string; retryable: boolean; retry_after_ms: number; message: string };
    assert.equal(body.code, 'RATE_LIMITED');
    assert.equal(body.retryable, true);
    assert.match(body.message, /Too many requests from this client/);
    const health = await send(server.baseUrl, { method: 'GET', path: '/healthz', from });
    assert.equal(health.status, 200, 'probes are never rate limited');
  });

  test('slow and idle sockets are closed; one client cannot hold every connection', { timeout: 60_000 }, async () => {
    const from = '127.0.0.3';
    const idle = Array.from({ length: 4 }, () => rawSocket(port, from));
    await Promise.all(idle.map((s) => new Promise((r) => s.socket.once('connect', r))));
    // Half a request line and headers, never finished.
    idle[0]!.socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    // Over this client's share: closed at once, without an answer.
    const extra = rawSocket(port, from);
    assert.equal(await extra.closed, '');
    // Meanwhile other clients are served.
    assert.equal((await send(server.baseUrl, { method: 'GET', path: '/healthz', from: '127.0.0.4' })).status, 200);
    // The header deadline closes the slow ones (answered 408 when a request had begun).
    const answers = await Promise.all(idle.map((s) => s.closed));
    assert.match(answers[0]!, /^HTTP\/1.1 408/);
    // Their places are free again, once the server has seen those sockets close: its own 'close'
    // events can trail the client's by a turn of the event loop, so a connection made in that gap
    // is still over the share.
    assert.equal(await healthzOnceFree(server.baseUrl, from), 200);
  });

  test('a body that does not arrive within the request deadline is answered 408 and closed', { timeout: 60_000 }, async () => {
    const slow = rawSocket(port, '127.0.0.5');
    await new Promise((r) => slow.socket.once('connect', r));
    slow.socket.write('POST /api/tool HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"tool":');
    assert.match(await slow.closed, /^HTTP\/1.1 408/);
  });
});
