import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { entrySchema } from '../../src/tools/kit/entry.js';
import { call, childEnv, httpClient, startServe, tempDir } from '../helpers/cli.js';

interface Page {
  resource_uri: string;
  as_of_tx_id: number;
  items: any[];
  next_cursor: string | null;
  [k: string]: unknown;
}

async function read(client: Client, uri: string): Promise<Page> {
  const res = await client.readResource({ uri });
  assert.equal(res.contents.length, 1);
  const c = res.contents[0]!;
  assert.equal(c.mimeType, 'application/json');
  assert.ok('text' in c && typeof c.text === 'string');
  return JSON.parse(c.text as string) as Page;
}

async function store(client: Client, args: Record<string, unknown>): Promise<{ id: string; tx_id: number }> {
  const r = await call(client, 'store', args);
  assert.equal(r.isError, undefined, JSON.stringify(r.content));
  return r.structuredContent as { id: string; tx_id: number };
}

describe('resources over Streamable HTTP', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let server: Awaited<ReturnType<typeof startServe>>;
  let client: Client;
  let writer: Client;
  const pagedIds: string[] = [];

  before(async () => {
    dir = await tempDir();
    server = await startServe(childEnv({ CONTEXT_GRAPH_DATA_DIR: dir.path }));
    client = await httpClient(server.mcpUrl, 'reader');
    writer = await httpClient(server.mcpUrl, 'writer');
    for (let i = 0; i < 45; i++) {
      const project = i % 3 === 0 ? 'alpha' : i % 3 === 1 ? 'beta' : 'team/gamma';
      const s = await store(writer, {
        content: `Paging fixture number ${i}: the ${i}th observation about service ${i % 7}.`,
        topic: i % 5 === 0 ? `Deployment note ${i}` : `misc ${i}`,
        tags: [`t${i % 4}`, 'fixture'],
        project_id: project,
      });
      pagedIds.push(s.id);
    }
  });
  after(async () => {
    await client?.close();
    await writer?.close();
    await server?.stop();
    await dir?.remove();
  });

  test('resources/list advertises the knowledge and discovery resources with name, description, mime type and an integer version', async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    for (const uri of [
      'knowledge://entries',
      'knowledge://graph/triples',
      'knowledge://history/transactions',
      'knowledge://memory-types',
      'knowledge://projects',
      'knowledge://health',
    ]) {
      assert.ok(uris.includes(uri), `${uri} listed`);
    }
    assert.ok(resources.length <= 20, 'bounded');
    for (const r of resources) {
      assert.ok(r.name.length > 0);
      assert.ok((r.description ?? '').length > 20, `${r.uri} has a description`);
      assert.equal(r.mimeType, 'application/json');
      assert.ok(Number.isInteger(r._meta?.version), `${r.uri} has an integer _meta.version`);
    }
    const { resourceTemplates } = await client.listResourceTemplates();
    const templates = resourceTemplates.map((t) => t.uriTemplate);
    assert.ok(templates.includes('knowledge://entries/{id}'));
    assert.ok(templates.includes('knowledge://projects/{project_id}/tags'));
    for (const t of resourceTemplates) {
      assert.equal(t.mimeType, 'application/json');
      assert.ok(Number.isInteger(t._meta?.version));
    }
  });

  test('entries page by 10 while writes happen between pages: no duplicates, none skipped, null cursor at the end', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let asOf: number | null = null;
    let pages = 0;
    const added: string[] = [];
    do {
      const uri: string = `knowledge://entries?limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await read(client, uri);
      pages++;
      assert.equal(page.resource_uri, 'knowledge://entries');
      asOf ??= page.as_of_tx_id;
      assert.equal(page.as_of_tx_id, asOf, "every page reads the first page's snapshot");
      assert.ok(page.items.length <= 10);
      for (const item of page.items) {
        seen.push(item.id);
        for (const k of ['id', 'topic', 'content', 'project_id', 'memory_type', 'tags', 'confidence', 'importance', 'valid_from', 'valid_to', 'recorded_at', 'updated_at']) {
          assert.ok(k in item, `item has ${k}`);
        }
      }
      cursor = page.next_cursor;
      // Writes land between pages; ULIDs sort after every id read so far, so keyset paging alone
      // would pick them up: the snapshot must keep them out.
      added.push((await store(writer, { content: `Written between pages ${pages}.`, project_id: 'alpha' })).id);
    } while (cursor !== null);
    assert.equal(pages, 5);
    assert.equal(new Set(seen).size, seen.length, 'no item twice');
    assert.deepEqual([...seen].sort(), [...pagedIds].sort(), 'exactly the entries that existed at the first page');
    assert.deepEqual(seen, [...seen].sort(), 'ordered by id');

    const fresh = await read(client, 'knowledge://entries?limit=100');
    assert.ok(fresh.as_of_tx_id > asOf!);
    for (const id of added)
      assert.ok(
        fresh.items.some((i) => i.id === id),
        'a new first page sees the new writes',
      );
    assert.equal(fresh.next_cursor, null);
  });

  test('entries filter by project_id and topic; a cursor is bound to its resource', async () => {
    const alpha = await read(client, 'knowledge://entries?project_id=alpha&limit=100');
    assert.equal(alpha.resource_uri, 'knowledge://entries?project_id=alpha');
    assert.ok(alpha.items.length >= 15);
    assert.ok(alpha.items.every((i) => i.project_id === 'alpha'));
    // The topic matches whole and in any case, exactly as query's topic filter does.
    const deploy = await read(client, 'knowledge://entries?topic=DEPLOYMENT%20note%2010&limit=100');
    assert.deepEqual(
      deploy.items.map((i) => i.id),
      [pagedIds[10]],
    );
    assert.equal((await read(client, 'knowledge://entries?topic=deployment&limit=100')).items.length, 0, 'no substring match');

    const first = await read(client, 'knowledge://entries?project_id=beta&limit=5');
    assert.ok(first.next_cursor);
    const second = await read(client, `knowledge://entries?project_id=beta&limit=5&cursor=${first.next_cursor}`);
    assert.ok(second.items.every((i) => i.project_id === 'beta'));
    assert.ok(second.items[0].id > first.items[4].id);
    await assert.rejects(client.readResource({ uri: `knowledge://entries?limit=5&cursor=${first.next_cursor}` }), /cursor/i);
    await assert.rejects(client.readResource({ uri: 'knowledge://entries?cursor=not-a-cursor' }), /cursor/i);
    await assert.rejects(client.readResource({ uri: 'knowledge://entries?limit=0' }), /limit/i);
    await assert.rejects(client.readResource({ uri: 'knowledge://entries?limit=101' }), /limit/i);
    await assert.rejects(client.readResource({ uri: 'knowledge://nothing-here' }), /not found/i);
  });

  test('resource errors carry one clean message: -32002 RESOURCE_NOT_FOUND, -32602 for bad parameters', async () => {
    const failure = async (uri: string) => {
      const err = await client.readResource({ uri }).then(
        () => assert.fail(`${uri} should fail`),
        (e: unknown) => e as Error & { code: number; data?: Record<string, unknown> },
      );
      assert.equal(err.message.match(/MCP error/g)?.length, 1, err.message);
      return err;
    };
    const missing = await failure('knowledge://nothing-here');
    assert.equal(missing.code, -32002);
    assert.equal(missing.message, 'MCP error -32002: Resource not found: knowledge://nothing-here. See resources/list and resources/templates/list.');
    assert.equal(missing.data?.code, 'RESOURCE_NOT_FOUND');
    const noEntry = await failure('knowledge://entries/01NOSUCHENTRY0000000000000');
    assert.deepEqual([noEntry.code, noEntry.data?.code], [-32002, 'RESOURCE_NOT_FOUND']);
    const badLimit = await failure('knowledge://entries?limit=abc');
    assert.equal(badLimit.code, -32602);
    assert.equal(badLimit.message, 'MCP error -32602: Invalid limit "abc": an integer from 1 to 100.');
    const badCursor = await failure('knowledge://entries?cursor=not-a-cursor');
    assert.equal(badCursor.code, -32602);
  });

  test('query {topic} and knowledge://entries?topic= find the same entries', async () => {
    const topic = 'shared Topic';
    const same = [await store(writer, { content: 'Topic parity one.', topic: 'Shared topic' }), await store(writer, { content: 'Topic parity two.', topic: 'SHARED TOPIC' })];
    await store(writer, { content: 'Topic parity decoy.', topic: 'shared topic, extended' });
    const viaQuery = await call(client, 'query', { topic, limit: 50 });
    assert.equal(viaQuery.isError, undefined, JSON.stringify(viaQuery.content));
    const queried = ((viaQuery.structuredContent as { items: Array<{ id: string }> }).items ?? []).map((i) => i.id).sort();
    const viaResource = (await read(client, `knowledge://entries?topic=${encodeURIComponent(topic)}&limit=100`)).items.map((i) => i.id).sort();
    assert.deepEqual(queried, same.map((s) => s.id).sort());
    assert.deepEqual(viaResource, queried);
  });

  test('graph triples and transaction history read in the same envelope', async () => {
    const triples = await read(client, 'knowledge://graph/triples');
    assert.equal(triples.resource_uri, 'knowledge://graph/triples');
    assert.ok(Array.isArray(triples.items));
    assert.equal(triples.next_cursor, null);

    const seen: number[] = [];
    let cursor: string | null = null;
    let asOf = 0;
    do {
      const page: Page = await read(client, `knowledge://history/transactions?limit=20${cursor ? `&cursor=${cursor}` : ''}`);
      asOf ||= page.as_of_tx_id;
      for (const t of page.items) {
        assert.equal(typeof t.tx_id, 'number');
        assert.equal(t.op.length > 0, true);
        assert.equal(t.changes, 1);
        assert.ok('reverted_by' in t && 'actor' in t && 'created_at' in t);
        seen.push(t.tx_id);
      }
      cursor = page.next_cursor;
      if (cursor) await store(writer, { content: `History write ${seen.length}.` });
    } while (cursor);
    assert.equal(seen.length, asOf, 'every transaction up to the snapshot, once');
    assert.deepEqual(
      seen,
      [...seen].sort((a, b) => b - a),
      'newest first',
    );
  });

  test('the entry template reads one entry; ids and project names complete', async () => {
    const id = pagedIds[7]!;
    const page = await read(client, `knowledge://entries/${id}`);
    assert.equal(page.items.length, 1);
    assert.equal(page.items[0].id, id);
    // Resources show entries exactly as the tools do.
    entrySchema.parse(page.items[0]);
    for (const item of (await read(client, 'knowledge://entries?project_id=alpha&limit=5')).items) entrySchema.parse(item);
    assert.equal(page.next_cursor, null);
    await assert.rejects(client.readResource({ uri: 'knowledge://entries/01NOSUCHENTRY0000000000000' }), /not found/i);

    const ids = await client.complete({ ref: { type: 'ref/resource', uri: 'knowledge://entries/{id}' }, argument: { name: 'id', value: id.slice(0, 24) } });
    assert.ok(ids.completion.values.includes(id));
    assert.ok(ids.completion.values.every((v) => v.startsWith(id.slice(0, 24))));

    const projects = await client.complete({ ref: { type: 'ref/resource', uri: 'knowledge://projects/{project_id}/tags' }, argument: { name: 'project_id', value: 'te' } });
    assert.deepEqual(projects.completion.values, ['team/gamma']);
    const all = await client.complete({ ref: { type: 'ref/resource', uri: 'knowledge://projects/{project_id}/tags' }, argument: { name: 'project_id', value: '' } });
    assert.deepEqual(all.completion.values, ['alpha', 'beta', 'default', 'team/gamma']);
  });

  test('discovery resources: memory types, projects, per-project tags, health', async () => {
    const types = await read(client, 'knowledge://memory-types');
    assert.deepEqual(types.memory_types, ['episodic', 'semantic', 'procedural']);
    assert.deepEqual(
      types.items.map((t) => t.memory_type),
      ['episodic', 'semantic', 'procedural'],
    );
    assert.equal(types.next_cursor, null);

    const projects = await read(client, 'knowledge://projects');
    assert.deepEqual(projects.projects, ['alpha', 'beta', 'default', 'team/gamma']);
    assert.equal(projects.items.find((p) => p.project_id === 'beta').entries, 15);
    const firstTwo = await read(client, 'knowledge://projects?limit=2');
    assert.deepEqual(firstTwo.projects, ['alpha', 'beta']);
    const rest = await read(client, `knowledge://projects?limit=2&cursor=${firstTwo.next_cursor}`);
    assert.deepEqual(rest.projects, ['default', 'team/gamma']);
    assert.equal(rest.next_cursor, null);

    for (const uri of ['knowledge://projects/team%2Fgamma/tags', 'knowledge://projects/team/gamma/tags']) {
      const tags = await read(client, uri);
      assert.equal(tags.project_id, 'team/gamma');
      assert.equal(tags.resource_uri, 'knowledge://projects/team%2Fgamma/tags');
      assert.deepEqual(tags.tags, ['fixture', 't0', 't1', 't2', 't3']);
      assert.equal(tags.items.find((t) => t.tag === 'fixture').entries, 15);
    }

    const health = await read(client, 'knowledge://health');
    assert.equal(health.items[0].status, 'ok');
    assert.equal(health.items[0].store.driver, 'pglite');
    assert.ok(Array.isArray(health.items[0].embedding));
  });
});
