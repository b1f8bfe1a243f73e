import assert from 'node:assert/strict';
import { request, type IncomingHttpHeaders } from 'node:http';
import { describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { call, httpClient, type startServe, useEmbeddedServer } from '../helpers/cli.js';

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: any;
  text: string;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/**
 * Plain HTTP, so the test controls what fetch would not let it: the Host header, a chunked
 * body with no length, and a body that is not JSON.
 */
function raw(baseUrl: string, method: string, path: string, opts: { headers?: Record<string, string>; body?: string | Buffer; chunked?: boolean } = {}): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers: opts.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode!, headers: res.headers, body, text });
      });
    });
    req.on('error', reject);
    if (opts.body !== undefined && !opts.chunked) req.setHeader('content-length', Buffer.byteLength(opts.body));
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** Every error the server itself answers is small, JSON, and says nothing about its insides. */
function assertCleanError(res: RawResponse): void {
  assert.equal(res.headers['content-type'], 'application/json');
  assert.ok(res.text.length < 300, `small: ${res.text}`);
  assert.ok(!/at \w+ \(|\.ts:|\.js:|node_modules|Error:/.test(res.text), `no internals: ${res.text}`);
}

describe('the HTTP server and its route table', () => {
  let server: Awaited<ReturnType<typeof startServe>>;
  let client: Client;

  useEmbeddedServer((f) => ({ server, client } = f));

  test('an unknown path is a 404 JSON error naming the path', async () => {
    const res = await raw(server.baseUrl, 'GET', '/nope?x=1');
    assert.equal(res.status, 404);
    assertCleanError(res);
    assert.deepEqual(res.body, { statusCode: 404, code: 'NOT_FOUND', error: 'Not Found', message: 'No route for GET /nope.' });
  });

  test('near misses of a route are not the route: /mcp/ and /healthz/x are 404', async () => {
    assert.equal((await raw(server.baseUrl, 'POST', '/mcp/', { headers: MCP_HEADERS, body: '{}' })).status, 404);
    assert.equal((await raw(server.baseUrl, 'GET', '/healthz/x')).status, 404);
  });

  test('a wrong method is a 405 with an Allow header listing the methods of that path', async () => {
    const health = await raw(server.baseUrl, 'POST', '/healthz', { body: '{}' });
    assert.equal(health.status, 405);
    assert.equal(health.headers.allow, 'GET');
    assertCleanError(health);
    assert.equal(health.body.code, 'METHOD_NOT_ALLOWED');

    const mcp = await raw(server.baseUrl, 'PUT', '/mcp', { headers: MCP_HEADERS, body: '{}' });
    assert.equal(mcp.status, 405);
    assert.equal(mcp.headers.allow, 'GET, POST, DELETE');
    assertCleanError(mcp);
    // /mcp speaks JSON-RPC, so its transport-level errors are JSON-RPC errors without an id.
    assert.equal(mcp.body.jsonrpc, '2.0');
    assert.equal(mcp.body.id, null);
    assert.equal(mcp.body.error.code, -32000);
    assert.match(mcp.body.error.message, /PUT/);
  });

  test('malformed JSON is a 400 parse error (-32700)', async () => {
    const res = await raw(server.baseUrl, 'POST', '/mcp', { headers: MCP_HEADERS, body: '{"jsonrpc": "2.0", "method": ' });
    assert.equal(res.status, 400);
    assertCleanError(res);
    assert.equal(res.body.error.code, -32700);
    assert.match(res.body.error.message, /not valid JSON/);
  });

  test('a body over the limit is a 413, whether announced by Content-Length or streamed chunked', async () => {
    const big = Buffer.alloc(MAX_BODY_BYTES + 1, 0x20);
    for (const chunked of [false, true]) {
      const res = await raw(server.baseUrl, 'POST', '/mcp', { headers: MCP_HEADERS, body: big, chunked });
      assert.equal(res.status, 413, `chunked: ${chunked}`);
      assertCleanError(res);
      assert.equal(res.body.error.code, -32000);
      assert.match(res.body.error.message, /exceeds 4194304 bytes/);
    }
  });

  test('a body just under the limit is read and reaches the MCP handler', async () => {
    const message = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: '' } });
    const body = message.replace('"pad":""', `"pad":"${'p'.repeat(MAX_BODY_BYTES - message.length)}"`);
    assert.equal(Buffer.byteLength(body), MAX_BODY_BYTES);
    const res = await raw(server.baseUrl, 'POST', '/mcp', { headers: { ...MCP_HEADERS, 'mcp-session-id': 'no-such-session' }, body });
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, -32001, 'the session lookup answered, not the body limit');
  });

  test('a foreign Host header is refused on every path, known or not', async () => {
    for (const path of ['/healthz', '/mcp', '/nope']) {
      const res = await raw(server.baseUrl, 'GET', path, { headers: { host: 'rebind.example:7411' } });
      assert.equal(res.status, 403, path);
      assertCleanError(res);
    }
    const ok = await raw(server.baseUrl, 'GET', '/healthz', { headers: { host: `localhost:${new URL(server.baseUrl).port}` } });
    assert.equal(ok.status, 200);
  });

  test('MCP over /mcp still works with the SDK client, one session per client', async () => {
    const stored = await call(client, 'store', { content: 'Route table test: the kettle in room 4 is descaled on Mondays.' });
    assert.equal(stored.isError, undefined, JSON.stringify(stored.content));
    const other = await httpClient(server.mcpUrl, 'second');
    try {
      const found = await call(other, 'query', { query: 'when is the kettle descaled?' });
      assert.equal((found.structuredContent as { items: Array<{ id: string }> }).items[0]?.id, (stored.structuredContent as { id: string }).id);
    } finally {
      await other.close();
    }
  });

  test('a session ended with DELETE is gone: its id then answers 404 -32001', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(server.mcpUrl));
    const ending = new Client({ name: 'ending', version: '1.0.0' });
    await ending.connect(transport);
    const sessionId = transport.sessionId!;
    const ping = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });
    const headers = { ...MCP_HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': transport.protocolVersion! };
    const alive = await raw(server.baseUrl, 'POST', '/mcp', { headers, body: ping(1) });
    assert.equal(alive.status, 200, alive.text);
    await transport.terminateSession();
    await ending.close();
    const gone = await raw(server.baseUrl, 'POST', '/mcp', { headers, body: ping(2) });
    assert.equal(gone.status, 404);
    assert.equal(gone.body.error.code, -32001);
  });

  test('POST /mcp with no session and no initialize is a 400 JSON-RPC error, as before', async () => {
    const res = await raw(server.baseUrl, 'POST', '/mcp', { headers: MCP_HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, -32000);
  });
});
