import assert from 'node:assert/strict';
import { request } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { startHttpServer, type HttpServer } from '../../src/transports/http-server.js';
import { InFlightLimits } from '../../src/transports/in-flight.js';
import { restGateway } from '../../src/transports/rest-gateway.js';
import { SessionLimits } from '../../src/transports/session-limits.js';
import { streamableHttp } from '../../src/transports/streamable-http.js';
import { call, tempDir, toolError } from '../helpers/cli.js';

/**
 * Issue 16, bounded resources per client and per session: calls in flight (HTTP front end and
 * every MCP session), the replay events a session keeps, its subscriptions, and sessions that
 * end (DELETE) leaving nothing behind. In process, on one embedded app.
 */

const REPLAY_BYTES = 16_384;
const IN_FLIGHT_PER_CLIENT = 4;
const IN_FLIGHT_PER_SESSION = 2;
/** The figure is 20,000 (the soak runs it); the suite opens and drops this many. */
const DROPPED_SESSIONS = Number(process.env.SESSION_BOUNDS_DROPPED ?? 200);
/** Sessions held open to measure what one kept session costs. */
const KEPT_SESSIONS = 50;
const PROTOCOL = '2025-06-18';
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'bounds', version: '1' } } };

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request whose body is sent only when `finish` is called: it stays in flight until then. */
function held(baseUrl: string, path: string, body: unknown, headers: Record<string, string> = {}): { answer: Promise<Answer>; finish(): void } {
  const url = new URL(path, baseUrl);
  const text = JSON.stringify(body);
  let req!: ReturnType<typeof request>;
  const answer = new Promise<Answer>((resolve, reject) => {
    req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': String(Buffer.byteLength(text)), ...headers },
      },
      (res) => {
        let out = '';
        res.on('data', (d: Buffer) => (out += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: out }));
      },
    );
    req.on('error', reject);
    req.flushHeaders();
  });
  return { answer, finish: () => void req.end(text) };
}

const send = (baseUrl: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
  const h = held(baseUrl, path, body, headers);
  h.finish();
  return h.answer;
};

async function openSession(baseUrl: string): Promise<string> {
  const a = await send(baseUrl, '/mcp', INIT);
  const id = a.headers['mcp-session-id'];
  assert.equal(typeof id, 'string', a.body);
  await send(baseUrl, '/mcp', { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': id as string, 'mcp-protocol-version': PROTOCOL });
  return id as string;
}

async function deleteSession(baseUrl: string, id: string): Promise<number> {
  const url = new URL('/mcp', baseUrl);
  const res = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': id, 'mcp-protocol-version': PROTOCOL } });
  await res.arrayBuffer();
  return res.status;
}

/** The heap after full collections, in bytes. */
function settledHeap(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

describe('bounded resources per client and per session', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let app: App;
  let http: HttpServer;
  let mcp: ReturnType<typeof streamableHttp>;
  let sessionLimits: SessionLimits;
  let inFlight: InFlightLimits;

  before(async () => {
    dir = await tempDir();
    app = await createApp(
      loadConfig({
        CONTEXT_GRAPH_DATA_DIR: dir.path,
        CONTEXT_GRAPH_AUTO_EDGES: 'off',
        CONTEXT_GRAPH_EMBED_WAIT_MS: '0',
        CONTEXT_GRAPH_SESSION_MEMORY_BYTES: String(REPLAY_BYTES),
        CONTEXT_GRAPH_MAX_IN_FLIGHT_PER_CLIENT: String(IN_FLIGHT_PER_CLIENT),
        CONTEXT_GRAPH_MAX_IN_FLIGHT_PER_SESSION: String(IN_FLIGHT_PER_SESSION),
        CONTEXT_GRAPH_MAX_SUBSCRIPTIONS_PER_SESSION: '2',
        CONTEXT_GRAPH_MAX_SESSIONS: String(DROPPED_SESSIONS + 10),
        CONTEXT_GRAPH_MAX_SESSIONS_PER_CLIENT: String(DROPPED_SESSIONS + 10),
      }),
      createLogger('warn'),
    );
    sessionLimits = SessionLimits.fromConfig(app.config);
    inFlight = InFlightLimits.fromConfig(app.config);
    mcp = streamableHttp(app, sessionLimits);
    http = await startHttpServer({ host: '127.0.0.1', port: 0, logger: app.logger, health: () => app.health(), transports: [mcp, restGateway(app)], inFlight });
  });
  after(async () => {
    await http?.close();
    sessionLimits?.close();
    await app?.close();
    await dir?.remove();
  });

  test(`a client with ${IN_FLIGHT_PER_CLIENT} requests unanswered gets 503 BUSY (retryable, Retry-After) for the next; an answer frees a place`, async () => {
    const hanging = Array.from({ length: IN_FLIGHT_PER_CLIENT }, () => held(http.baseUrl, '/api/tool', { tool: 'query', arguments: { query: 'anything' } }));
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(inFlight.usage(), { clients: 1, sessions: 0 });
    const refused = await send(http.baseUrl, '/api/tool', { tool: 'query', arguments: { query: 'anything' } });
    assert.equal(refused.status, 503);
    assert.equal(refused.headers['retry-after'], '1');
    const body = JSON.parse(refused.body) as { code: string; retryable: boolean; message: string };
    assert.equal(body.code, 'BUSY');
    assert.equal(body.retryable, true);
    assert.match(body.message, /4 requests unanswered/);
    // /healthz is never refused.
    assert.equal((await fetch(`${http.baseUrl}/healthz`)).status, 200);
    hanging[0]!.finish();
    assert.equal((await hanging[0]!.answer).status, 200);
    assert.equal((await send(http.baseUrl, '/api/tool', { tool: 'query', arguments: { query: 'anything' } })).status, 200, 'the answered request gave its place back');
    for (const h of hanging.slice(1)) h.finish();
    for (const h of hanging.slice(1)) assert.equal((await h.answer).status, 200);
    assert.deepEqual(inFlight.usage(), { clients: 0, sessions: 0 }, 'nothing is counted once all are answered');
  });

  test(`an MCP session with ${IN_FLIGHT_PER_SESSION} calls unanswered gets BUSY for the next: on /mcp as JSON-RPC error -32032, in any session as a tool error`, async () => {
    const id = await openSession(http.baseUrl);
    const headers = { 'mcp-session-id': id, 'mcp-protocol-version': PROTOCOL };
    const callMsg = (n: number) => ({ jsonrpc: '2.0', id: 10 + n, method: 'tools/call', params: { name: 'query', arguments: { query: 'anything' } } });
    const hanging = [held(http.baseUrl, '/mcp', callMsg(0), headers), held(http.baseUrl, '/mcp', callMsg(1), headers)];
    await new Promise((r) => setTimeout(r, 200));
    const refused = await send(http.baseUrl, '/mcp', callMsg(2), headers);
    assert.equal(refused.status, 503);
    const rpc = JSON.parse(refused.body) as { error: { code: number; message: string; data: { code: string; retryable: boolean } } };
    assert.deepEqual([rpc.error.code, rpc.error.data.code, rpc.error.data.retryable], [-32032, 'BUSY', true]);
    assert.match(rpc.error.message, /This session has 2 requests unanswered/);
    for (const h of hanging) h.finish();
    for (const h of hanging) assert.equal((await h.answer).status, 200);
    assert.equal(await deleteSession(http.baseUrl, id), 200);

    // Any transport (stdio, /sse, in memory): calls waiting on the client (an elicitation it never answers) hold their places.
    const server = createMcpServer(app, { actor: 'test:bounds' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'slow-elicitation', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    const pending: Array<() => void> = [];
    client.setRequestHandler(ElicitRequestSchema, () => new Promise((resolve) => pending.push(() => resolve({ action: 'decline' }))));
    await client.connect(clientSide);
    const waiting = [call(client, 'search', { query_text: '   ' }), call(client, 'search', { query_text: '   ' })];
    while (pending.length < 2) await new Promise((r) => setTimeout(r, 20));
    const busy = toolError(await call(client, 'search', { query_text: 'pumps' }));
    assert.ok(busy, 'the third call is refused');
    assert.equal(busy.code, 'BUSY');
    assert.equal(busy.retryable, true);
    assert.match(busy.message, /2 calls unanswered/);
    for (const answer of pending) answer();
    await Promise.all(waiting);
    assert.equal(toolError(await call(client, 'search', { query_text: 'pumps' })), undefined, 'answered calls gave their places back');
    await client.close();
  });

  test(`a session keeps at most ${REPLAY_BYTES} bytes of replay events: the oldest are dropped, a resume gets what remains`, async () => {
    const id = await openSession(http.baseUrl);
    const headers = { 'mcp-session-id': id, 'mcp-protocol-version': PROTOCOL };
    const eventIds: string[] = [];
    for (let i = 0; i < 30; i++) {
      const a = await send(http.baseUrl, '/mcp', { jsonrpc: '2.0', id: 100 + i, method: 'tools/list', params: {} }, headers);
      assert.equal(a.status, 200);
      const ids = [...a.body.matchAll(/^id: (.+)$/gm)].map((m) => m[1]!);
      assert.ok(ids.length > 0, 'the answer is an SSE event with an id');
      eventIds.push(ids.at(-1)!);
    }
    const usage = mcp.usage().events;
    assert.equal(usage.sessions, 1);
    assert.ok(usage.bytes <= REPLAY_BYTES, `${usage.bytes} bytes kept`);
    assert.ok(usage.events < 30, `${usage.events} of 30 answers kept: the oldest were dropped`);
    const resume = async (eventId: string) => {
      const [stream, seq] = [eventId.slice(0, eventId.lastIndexOf('|')), Number(eventId.slice(eventId.lastIndexOf('|') + 1))];
      const res = await fetch(`${http.baseUrl}/mcp`, {
        headers: { ...headers, accept: 'text/event-stream', 'last-event-id': `${stream}|${seq - 1}` },
        signal: AbortSignal.timeout(2_000),
      });
      const reader = res.body!.getReader();
      let text = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          text += Buffer.from(value).toString();
          if (text.includes('"tools"')) break;
        }
      } catch {
        // The replay stream stays open for what comes next; the timeout ends it.
      }
      await reader.cancel().catch(() => {});
      return text.includes('"tools"');
    };
    assert.equal(await resume(eventIds.at(-1)!), true, 'the newest answer is replayed');
    assert.equal(await resume(eventIds[0]!), false, 'the oldest answer was dropped');
    assert.equal(await deleteSession(http.baseUrl, id), 200);
  });

  test('a session may hold 2 subscriptions; the 3rd is SUBSCRIPTIONS_FULL (-32046), and unsubscribing frees a place', async () => {
    const server = createMcpServer(app, { actor: 'test:subs' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'subs', version: '1' });
    await client.connect(clientSide);
    await client.subscribeResource({ uri: 'knowledge://entries' });
    await client.subscribeResource({ uri: 'knowledge://history/transactions' });
    await client.subscribeResource({ uri: 'knowledge://entries' });
    await assert.rejects(client.subscribeResource({ uri: 'knowledge://projects' }), (err: { code: number; message: string; data: { code: string } }) => {
      assert.equal(err.code, -32046);
      assert.equal(err.data.code, 'SUBSCRIPTIONS_FULL');
      assert.match(err.message, /subscribed to 2 resources/);
      return true;
    });
    await client.unsubscribeResource({ uri: 'knowledge://entries' });
    assert.deepEqual(await client.subscribeResource({ uri: 'knowledge://projects' }), {});
    await client.close();
  });

  test(`${DROPPED_SESSIONS} sessions opened and ended (DELETE) leave nothing behind: no session, no events, no place, no listener, no heap`, { timeout: 300_000 }, async () => {
    const headers = (id: string) => ({ 'mcp-session-id': id, 'mcp-protocol-version': PROTOCOL });
    const listTools = (id: string) => send(http.baseUrl, '/mcp', { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }, headers(id));
    // Warm up (code, caches), then measure what a kept session costs: the yardstick for a leak.
    for (let i = 0; i < 50; i++) assert.equal(await deleteSession(http.baseUrl, await openSession(http.baseUrl)), 200);
    const listeners = app.services.changes.listenerCount('tx');
    const base = settledHeap();
    const kept: string[] = [];
    for (let i = 0; i < KEPT_SESSIONS; i++) {
      kept.push(await openSession(http.baseUrl));
      await listTools(kept.at(-1)!);
    }
    const keptCost = (settledHeap() - base) / KEPT_SESSIONS;
    for (const id of kept) assert.equal(await deleteSession(http.baseUrl, id), 200);
    const before = settledHeap();
    for (let i = 0; i < DROPPED_SESSIONS; i += 20) {
      await Promise.all(
        Array.from({ length: Math.min(20, DROPPED_SESSIONS - i) }, async () => {
          const id = await openSession(http.baseUrl);
          await listTools(id);
          assert.equal(await deleteSession(http.baseUrl, id), 200);
        }),
      );
    }
    const grown = settledHeap() - before;
    assert.deepEqual(mcp.usage(), { sessions: 0, events: { sessions: 0, events: 0, bytes: 0 } });
    assert.equal(sessionLimits.size, 0, 'every place is free');
    assert.equal(app.services.changes.listenerCount('tx'), listeners);
    // A kept session costs tens of kilobytes (its server, transport and events); a dropped one must cost a small fraction of that (under a fifth: what is left is allocator and compiler noise, not sessions).
    const perSession = grown / DROPPED_SESSIONS;
    console.log(
      `# ${DROPPED_SESSIONS} sessions opened and dropped: heap ${(grown / 1e6).toFixed(1)} MB, ${Math.round(perSession)} bytes per dropped session; a kept session costs ${Math.round(keptCost)} bytes`,
    );
    assert.ok(keptCost > 10_000, `a kept session costs ${Math.round(keptCost)} bytes: the yardstick measures something`);
    assert.ok(perSession < keptCost / 5, `the heap grew ${Math.round(perSession)} bytes per dropped session, against ${Math.round(keptCost)} per kept one`);
  });
});
