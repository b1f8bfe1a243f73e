import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { call, useEmbeddedServer } from '../helpers/cli.js';

type Payload = Record<string, unknown> & { kind: string };

/** The structured payload of a result: structuredContent, or the toolError:v1 block of an error. */
function payloadOf(result: CallToolResult): Payload {
  if (!result.isError) return result.structuredContent as Payload;
  const block = [...result.content].reverse().find((b) => b.type === 'text' && b.text.startsWith('{'));
  assert.ok(block && block.type === 'text', JSON.stringify(result.content));
  return JSON.parse(block.text) as Payload;
}

async function readJson(client: Client, uri: string): Promise<Record<string, any>> {
  const res = await client.readResource({ uri });
  const c = res.contents[0]!;
  assert.equal(c.mimeType, 'application/json');
  assert.ok('text' in c && typeof c.text === 'string');
  return JSON.parse(c.text) as Record<string, any>;
}

describe('payload schemas are resources (knowledge://schemas/{kind})', () => {
  let client: Client;
  useEmbeddedServer((f) => ({ client } = f));

  test('every schema URI in tools/list reads back a JSON Schema that validates a real payload of that tool', async () => {
    // One ordinary call per tool (all toolsets are on), keyed by tool and payload kind.
    const stored = payloadOf(await call(client, 'store', { content: 'Deploys use blue-green with a 5 minute rollback window.', topic: 'deployment', tags: ['ops'] }));
    const second = payloadOf(await call(client, 'store', { content: 'Backups run nightly at 02:00 UTC.', topic: 'backups' }));
    const calls: Array<[string, Record<string, unknown>]> = [
      ['push', { text: 'Our deploy process. Step one: build. Step two: ship.', source_uri: 'file://docs/deploy.md' }],
      ['query', { query: 'how do we deploy?' }],
      ['query', {}],
      ['search', { query_text: 'database backup schedule' }],
      ['update', { id: stored.id, content: 'Deploys use blue-green with a 10 minute rollback window.' }],
      ['update', { id: '01NOSUCHENTRY0000000000000', content: 'x' }],
      ['relate', { subject: 'payments-service', predicate: 'depends_on', object: 'postgres' }],
      ['query_graph', { node: 'payments-service' }],
      ['history', { limit: 10 }],
      ['delete', { id: second.id }],
      ['undo', {}],
      ['toolsets', {}],
    ];
    const payloads = new Map<string, Payload[]>();
    const keep = (tool: string, p: Payload) => payloads.set(`${tool} ${p.kind}`, [...(payloads.get(`${tool} ${p.kind}`) ?? []), p]);
    keep('store', stored);
    keep('store', second);
    for (const [tool, args] of calls) keep(tool, payloadOf(await call(client, tool, args)));

    const validator = new AjvJsonSchemaValidator();
    const { tools } = await client.listTools();
    assert.ok(tools.length >= 11, 'all toolsets listed');
    const checked = new Set<string>();
    for (const tool of tools) {
      const uris = /^Schemas: (.*)$/.exec((tool.outputSchema?.description as string | undefined) ?? '')?.[1]?.split(', ') ?? [];
      assert.ok(uris.length > 0, `${tool.name} refers to its schemas`);
      for (const uri of uris) {
        const schema = await readJson(client, uri);
        assert.equal(schema.$id, uri);
        const kind = decodeURIComponent(uri.slice('knowledge://schemas/'.length));
        assert.equal(schema.properties?.kind?.const, kind, `${uri} is the schema of ${kind}`);
        // needsInput:v1 is one shape for every tool that may ask: any tool's real one will do.
        const real = payloads.get(`${tool.name} ${kind}`) ?? (kind === 'needsInput:v1' ? payloads.get(`query ${kind}`) : undefined);
        assert.ok(real?.length, `a real ${kind} payload of ${tool.name}`);
        const validate = validator.getValidator(schema);
        for (const p of real) assert.ok(validate(p).valid, `${tool.name} ${kind}: ${validate(p).errorMessage}`);
        checked.add(kind);
      }
    }
    assert.ok(checked.size >= 12, [...checked].join(', '));

    // Errors are published too, and a tool's error payload matches its schema.
    const toolError = await readJson(client, 'knowledge://schemas/toolError:v1');
    const error = payloads.get('update toolError:v1')?.[0];
    assert.equal(error?.code, 'NODE_NOT_FOUND');
    assert.ok(validator.getValidator(toolError)(error).valid);
    // The schema rejects what is not of its kind.
    assert.equal(validator.getValidator(await readJson(client, 'knowledge://schemas/entries:v1'))(stored).valid, false);
  });

  test('knowledge://schemas lists every kind; kinds complete; an unknown kind answers RESOURCE_NOT_FOUND cleanly', async () => {
    const index = await readJson(client, 'knowledge://schemas');
    assert.equal(index.resource_uri, 'knowledge://schemas');
    assert.ok(index.kinds.includes('entries:v1') && index.kinds.includes('needsInput:v1') && index.kinds.includes('toolError:v1'));
    assert.deepEqual(
      index.items.map((i: { uri: string }) => i.uri),
      index.kinds.map((k: string) => `knowledge://schemas/${k}`),
    );
    for (const uri of index.items.map((i: { uri: string }) => i.uri)) assert.equal((await readJson(client, uri)).$id, uri);
    // Percent-encoded as a URI template expands it, the kind reads all the same.
    assert.equal((await readJson(client, 'knowledge://schemas/entries%3Av1')).title, 'entries:v1');

    const { resourceTemplates } = await client.listResourceTemplates();
    assert.ok(resourceTemplates.some((t) => t.uriTemplate === 'knowledge://schemas/{kind}'));
    const completion = await client.complete({ ref: { type: 'ref/resource', uri: 'knowledge://schemas/{kind}' }, argument: { name: 'kind', value: 'en' } });
    assert.deepEqual(completion.completion.values, ['entries:v1']);

    const err = await client.readResource({ uri: 'knowledge://schemas/nothing:v9' }).then(
      () => assert.fail('an unknown kind should fail'),
      (e: unknown) => e as Error & { code: number; data?: Record<string, unknown> },
    );
    assert.equal(err.code, -32002);
    assert.equal(err.data?.code, 'RESOURCE_NOT_FOUND');
    assert.equal(err.message, 'MCP error -32002: Resource not found: no payload kind "nothing:v9". knowledge://schemas lists the kinds.');
  });
});
