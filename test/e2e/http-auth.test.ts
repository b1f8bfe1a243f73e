import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { childEnv, runCli, startServe, tempDir } from '../helpers/cli.js';

/** Bearer-token auth at the route table (every route but /healthz), Origin checks, bind refusal. */

const TOKEN = 'test-token-0123456789abcdef';

function bearer(token: string): { requestInit: RequestInit } {
  return { requestInit: { headers: { authorization: `Bearer ${token}` } } };
}

describe('HTTP with a bearer token', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let server: Awaited<ReturnType<typeof startServe>>;

  before(async () => {
    dir = await tempDir();
    const tokenFile = join(dir.path, 'token');
    await writeFile(tokenFile, `${TOKEN}\n`);
    server = await startServe(childEnv({ CONTEXT_GRAPH_DATA_DIR: join(dir.path, 'data'), CONTEXT_GRAPH_AUTH_TOKEN_FILE: tokenFile }));
  });
  after(async () => {
    await server.stop();
    await dir.remove();
  });

  test('no token: 401 with WWW-Authenticate on /mcp, /sse and unknown paths alike', async () => {
    for (const [method, path] of [
      ['POST', '/mcp'],
      ['GET', '/sse'],
      ['POST', '/messages?sessionId=x'],
      ['GET', '/nope'],
    ] as const) {
      const res = await fetch(server.baseUrl + path, {
        method,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        ...(method === 'POST' ? { body: '{}' } : {}),
      });
      assert.equal(res.status, 401, `${method} ${path}`);
      assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="context-graph"');
      assert.doesNotMatch(await res.text(), new RegExp(TOKEN));
    }
  });

  test('a wrong token: 401 invalid_token, and the SDK client cannot connect', async () => {
    const res = await fetch(`${server.baseUrl}/mcp`, {
      method: 'POST',
      headers: { authorization: 'Bearer wrong-token-0123456789', 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate')!, /error="invalid_token"/);
    const client = new Client({ name: 'wrong', version: '1' });
    await assert.rejects(client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), bearer('wrong-token-0123456789'))));
  });

  test('the right token: Streamable HTTP and legacy SSE clients both work', async () => {
    const http = new Client({ name: 'ok-http', version: '1' });
    await http.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), bearer(TOKEN)));
    assert.ok((await http.listTools()).tools.length > 0);
    await http.close();
    const sse = new Client({ name: 'ok-sse', version: '1' });
    await sse.connect(new SSEClientTransport(new URL(`/sse?resume_key=${randomUUID()}`, server.baseUrl), bearer(TOKEN)));
    assert.ok((await sse.listTools()).tools.length > 0);
    await sse.close();
  });

  test('/healthz answers without a token (a liveness probe)', async () => {
    const res = await fetch(`${server.baseUrl}/healthz`);
    assert.equal(res.status, 200);
  });

  test('a browser Origin that is not loopback nor listed is refused with 403, even with the token', async () => {
    const foreign = await fetch(`${server.baseUrl}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, origin: 'https://evil.example', 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(foreign.status, 403);
    const local = await fetch(`${server.baseUrl}/healthz`, { headers: { origin: 'http://localhost:3000' } });
    assert.equal(local.status, 200);
  });
});

describe('binding beyond loopback', () => {
  test('serve refuses a non-loopback bind without a token, and says how to proceed', async () => {
    const dir = await tempDir();
    try {
      const run = runCli(['serve', '--host', '0.0.0.0', '--port', '0'], childEnv({ CONTEXT_GRAPH_DATA_DIR: dir.path }));
      assert.equal(await run.exited, 2);
      assert.match(run.stderr(), /refusing to listen on 0\.0\.0\.0 without a token.*CONTEXT_GRAPH_AUTH_TOKEN.*--allow-insecure-bind/s);
    } finally {
      await dir.remove();
    }
  });
});
