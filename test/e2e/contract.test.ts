import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { call, type startServe, toolError, useEmbeddedServer } from '../helpers/cli.js';

/** The default tools/list budget (issue 7): an agent's context must not drown in tool schemas. */
const DEFAULT_LIST_BUDGET_BYTES = 16 * 1024;

describe('contract as a new user meets it: toolsets, published schemas, dates, blank content, bad arguments', () => {
  let server: Awaited<ReturnType<typeof startServe>>;
  let client: Client;

  // The default toolsets, as a user who sets nothing gets them.
  useEmbeddedServer((f) => ({ server, client } = f), { CONTEXT_GRAPH_TOOLSETS: '' });

  test('the default tools/list is the core toolset within budget; other toolsets are switched on per session', async (t) => {
    const { tools } = await client.listTools();
    const bytes = Buffer.byteLength(JSON.stringify({ tools }));
    t.diagnostic(`default tools/list: ${bytes} bytes, ${tools.length} tools`);
    assert.ok(bytes <= DEFAULT_LIST_BUDGET_BYTES, `default tools/list is ${bytes} bytes`);
    const names = tools.map((x) => x.name);
    for (const core of ['store', 'search', 'query', 'update', 'delete', 'undo', 'toolsets']) assert.ok(names.includes(core), core);
    assert.ok(!names.includes('relate'));

    const disabled = await call(client, 'relate', { subject: 'a', predicate: 'b', object: 'c' });
    assert.equal(disabled.isError, true);
    assert.equal(toolError(disabled)?.code, 'TOOLSET_DISABLED');
    assert.match(toolError(disabled)!.message, /"graph"/);

    let listChanged = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged++);
    const switched = (await call(client, 'toolsets', { enable: ['graph'] })).structuredContent as { changed: string[]; toolsets: Array<{ name: string; enabled: boolean }> };
    assert.deepEqual(switched.changed, ['graph']);
    for (let i = 0; i < 50 && listChanged === 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(listChanged, 1, 'notifications/tools/list_changed was sent');
    assert.ok((await client.listTools()).tools.some((x) => x.name === 'relate'));
    assert.equal((await call(client, 'relate', { subject: 'kiln', predicate: 'part_of', object: 'studio' })).isError, undefined);

    const other = new Client({ name: 'other', version: '1' });
    await other.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl)));
    assert.ok(!(await other.listTools()).tools.some((x) => x.name === 'relate'), 'another session keeps its own toolsets');
    await call(other, 'toolsets', { enable: ['all'] });
    const all = (await other.listTools()).tools;
    t.diagnostic(`all toolsets tools/list: ${Buffer.byteLength(JSON.stringify({ tools: all }))} bytes, ${all.length} tools`);
    assert.ok(all.some((x) => x.name === 'history') && all.some((x) => x.name === 'push'));
    const unknown = await call(other, 'toolsets', { enable: ['nope'] });
    assert.equal(toolError(unknown)?.code, 'INVALID_PARAMS');
    await other.close();
  });

  test('published input schemas accept what the server accepts: aliases and a lone string for a list', async () => {
    const { tools } = await client.listTools();
    const validator = new AjvJsonSchemaValidator();
    const schemaOf = (name: string) => validator.getValidator(tools.find((x) => x.name === name)!.inputSchema);
    for (const [tool, args] of [
      ['store', { text: 'Alias check: the boiler is serviced in May.', type: 'episodic', project: 'house', tags: 'maintenance' }],
      ['search', { query: 'boiler service', project: 'house', k: 3, tags: 'maintenance' }],
      ['query', { query_text: 'boiler', type: 'episodic' }],
    ] as const) {
      const verdict = schemaOf(tool)(args);
      assert.ok(verdict.valid, `${tool}: ${verdict.errorMessage}`);
      const r = await call(client, tool, args);
      assert.equal(r.isError, undefined, `${tool}: ${JSON.stringify(r.content).slice(0, 300)}`);
    }
    assert.equal(schemaOf('store')({ content: 'x', bogus: 1 }).valid, false, 'unknown keys are still refused');
  });

  test('one date field: impossible dates and five-digit years are INVALID_PARAMS; dates and date-times are accepted', async () => {
    const stored = (await call(client, 'store', { content: 'Date check: the permit runs out at the end of February.', valid_from: '2026-02-28' })).structuredContent as {
      id: string;
    };
    for (const [tool, args] of [
      ['update', { id: stored.id, valid_from: '99999-01-01' }],
      ['store', { content: 'Date check two.', valid_to: '2026-02-30' }],
      ['search', { query_text: 'permit', time_range: { start: 'yesterday' } }],
    ] as const) {
      const r = await call(client, tool, args);
      assert.equal(toolError(r)?.code, 'INVALID_PARAMS', `${tool} ${JSON.stringify(args)}`);
    }
    const ok = await call(client, 'update', { id: stored.id, valid_to: '2026-03-01T00:00:00+01:00' });
    assert.equal(ok.isError, undefined);
    assert.equal((ok.structuredContent as { valid_to: string }).valid_to, '2026-02-28T23:00:00.000Z');
  });

  test('blank content is refused; an exact duplicate is stored and says so in the markdown', async () => {
    const blank = await call(client, 'store', { content: ' \n\t ' });
    assert.equal(toolError(blank)?.code, 'INVALID_PARAMS');
    const first = await call(client, 'store', { content: 'Duplicate check: the studio key is under the mat.' });
    assert.equal(first.isError, undefined);
    const again = await call(client, 'store', { content: 'Duplicate check: the studio key is under the mat.' });
    const text = (again.content[0] as { text: string }).text;
    assert.match(text, /duplicate/i);
    assert.ok(text.includes((first.structuredContent as { id: string }).id), 'the markdown names the existing entry');
  });

  test('a superseded fact ranks below its replacement and says whom it was replaced by, in every shape', async () => {
    const old = (await call(client, 'store', { content: 'The lighthouse keeper rotates the lamp every four hours.', project_id: 'coast' })).structuredContent as { id: string };
    const upd = (await call(client, 'update', { id: old.id, content: 'The lighthouse keeper rotates the lamp every six hours.', supersedes: true })).structuredContent as {
      id: string;
    };
    type Hit = { id: string; superseded_by: string | null };
    // The old text matches the query's number better, so only the demotion can put it second.
    const r = await call(client, 'search', { query_text: 'how often is the lighthouse lamp rotated every four hours', project_id: 'coast', score_threshold: 0 });
    const hits = (r.structuredContent as { hits: Hit[] }).hits;
    assert.deepEqual(
      hits.map((h) => h.id),
      [upd.id, old.id],
    );
    assert.equal(hits[1]!.superseded_by, upd.id);
    assert.equal(hits[0]!.superseded_by, null);
    assert.match((r.content[0] as { text: string }).text, new RegExp(`superseded by \`${upd.id}\``));
    const byId = (await call(client, 'query', { id: old.id })).structuredContent as { items: Hit[] };
    assert.equal(byId.items[0]!.superseded_by, upd.id);
    const resource = JSON.parse(((await client.readResource({ uri: `knowledge://entries/${old.id}` })).contents[0] as { text: string }).text) as { items: Hit[] };
    assert.equal(resource.items[0]!.superseded_by, upd.id);
  });

  test('arguments that are not an object answer a clean INVALID_PARAMS, no internal dump', async () => {
    const r: CallToolResult = await client.request({ method: 'tools/call', params: { name: 'store', arguments: 'content=hello' as never } }, CallToolResultSchema);
    assert.equal(r.isError, true);
    const err = toolError(r)!;
    assert.equal(err.code, 'INVALID_PARAMS');
    assert.doesNotMatch(err.message, /zod|ZodError|expected":|at \w+ \(/);
  });
});
