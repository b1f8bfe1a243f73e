/**
 * What reaches the raw wire (seed 000 US-002-003 resource versions, seed 003 §2 MIME-typed
 * blocks), read as JSON-RPC over plain HTTP, and what of it survives the SDK client's parsing.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, useEmbeddedServer, type ServerFixture } from '../helpers/cli.js';

/** One JSON-RPC request on an initialized session, the response parsed from JSON or SSE framing. */
async function rpc(f: ServerFixture, session: { id: string; protocol: string }, method: string, params: unknown): Promise<any> {
  const res = await fetch(f.server.mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': session.id, 'mcp-protocol-version': session.protocol },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  });
  const text = await res.text();
  const json = res.headers.get('content-type')?.startsWith('text/event-stream')
    ? text
        .split('\n')
        // Priming events of a resumable stream carry an id and an empty data line.
        .filter((l) => l.startsWith('data:') && l.slice(5).trim() !== '')
        .map((l) => JSON.parse(l.slice(5)))
        .find((m) => m.id === 7)
    : JSON.parse(text);
  assert.ok(json?.result, `a result for ${method}: ${text.slice(0, 300)}`);
  return json.result;
}

describe('the raw wire', () => {
  let f: ServerFixture;
  let session: { id: string; protocol: string };
  let wireClient: Client;
  useEmbeddedServer((fixture) => (f = fixture));

  test('open a session whose id the raw requests reuse', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(f.server.mcpUrl));
    wireClient = new Client({ name: 'wire', version: '1.0.0' });
    await wireClient.connect(transport);
    session = { id: transport.sessionId!, protocol: transport.protocolVersion! };
  });

  test('every listed resource and template carries an integer version at the top level and in _meta', async () => {
    const listed = await rpc(f, session, 'resources/list', {});
    const templates = await rpc(f, session, 'resources/templates/list', {});
    const all = [...listed.resources, ...templates.resourceTemplates];
    assert.ok(all.length >= 5);
    for (const r of all) {
      assert.ok(Number.isInteger(r.version) && r.version >= 1, `${r.name}: version ${r.version}`);
      assert.equal(r._meta?.version, r.version, r.name);
    }
    // The SDK client drops unknown top-level fields; _meta.version is what it keeps.
    const viaSdk = await f.client.listResources();
    assert.ok(viaSdk.resources.every((r) => Number.isInteger(r._meta?.version)));
  });

  test('text blocks name their MIME type on the wire, and _meta.mimeType survives the SDK client', async () => {
    await call(f.client, 'store', { content: 'Wire test: the boiler is serviced every October.' });
    const result = await rpc(f, session, 'tools/call', { name: 'search', arguments: { query: 'boiler serviced', format: 'both' } });
    const texts = result.content.filter((b: any) => b.type === 'text');
    assert.deepEqual(
      texts.map((b: any) => [b.mimeType, b._meta?.mimeType]),
      [
        ['text/markdown', 'text/markdown'],
        ['application/json', 'application/json'],
      ],
    );
    const viaSdk = await call(f.client, 'search', { query: 'boiler serviced', format: 'both' });
    const json = viaSdk.content.find((b) => b.type === 'text' && b._meta?.mimeType === 'application/json');
    assert.ok(json && json.type === 'text', 'the SDK client can find the JSON block by _meta.mimeType');
    assert.equal(JSON.parse(json.text).kind, (viaSdk.structuredContent as { kind: string }).kind);
  });

  test('error results type their blocks the same way', async () => {
    const result = await rpc(f, session, 'tools/call', { name: 'update', arguments: { id: 'no-such-id', content: 'x' } });
    assert.equal(result.isError, true);
    const json = result.content.find((b: any) => b._meta?.mimeType === 'application/json');
    assert.equal(JSON.parse(json.text).kind, 'toolError:v1');
    await wireClient.close();
  });
});
