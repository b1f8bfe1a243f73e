import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { tempDir, toolError } from '../helpers/cli.js';
import { inMemoryClient } from '../helpers/in-memory.js';

type Collection = { project_id: string; name: string; declared: boolean; memories: number; chunks: number; documents: number; bytes: number };
type Metrics = { documentsIndexed: number; chunksIndexed: number; lastChunkSize: number | null; memories: number; bytes: number; collections: Collection[] };

/** A document of `n` distinct sentences about one subject, long enough for several 32-token chunks. */
const documentAbout = (subject: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${subject} note ${i}: inspect the ${subject} fitting number ${i} before opening line ${i}.`).join(' ');

// The real app and its MCP server in process, an SDK client over the in-memory pair.
describe('collections (seed 004): namespaces inside a project', () => {
  let app: App;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let client: Client;

  before(async () => {
    dir = await tempDir();
    app = await createApp(loadConfig({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_TOOLSETS: 'core,ingest,history,collections' }), createLogger('warn'));
    client = await inMemoryClient(app, { name: 'collections-test', actor: 'collections-test' });
  });
  after(async () => {
    await client.close();
    await app.close();
    await dir.remove();
  });

  async function raw(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    return (await client.callTool({ name, arguments: args })) as CallToolResult;
  }
  async function ok(name: string, args: Record<string, unknown>): Promise<any> {
    const r = await raw(name, args);
    assert.equal(r.isError, undefined, `${name}: ${JSON.stringify(r.content).slice(0, 400)}`);
    return r.structuredContent;
  }
  const collectionsOf = async (project: string): Promise<Collection[]> => (await ok('get_collections', { project_id: project })).collections;
  const named = (list: Collection[], name: string) => list.find((c) => c.name === name);

  test('new_collection declares once; get_collections lists it next to the implicit default', async () => {
    const before = await collectionsOf('plant');
    assert.deepEqual(
      before.map((c) => [c.name, c.declared, c.memories, c.chunks]),
      [['default', false, 0, 0]],
      'a project always has its default',
    );
    const created = await ok('new_collection', { name: 'manuals', project_id: 'plant', description: 'Equipment manuals' });
    assert.equal(created.status, 'created');
    assert.ok(created.tx_id > 0);
    const again = await ok('new_collection', { name: 'manuals', project_id: 'plant' });
    assert.deepEqual([again.status, again.tx_id, again.id], ['exists', 0, created.id], 'creating it again writes nothing');
    const listed = await ok('get_collections', { project_id: 'plant' });
    assert.deepEqual(listed.names, ['default', 'manuals']);
    assert.equal(named(listed.collections, 'manuals')?.declared, true);
    // Collections are per project: another project does not see it.
    assert.deepEqual((await ok('get_collections', { project_id: 'office' })).names, ['default']);
  });

  test('push dedupes per collection, and the same text pushed twice counts every chunk of the second push as a duplicate', async () => {
    const text = documentAbout('valve', 12);
    const intoDefault = await ok('push', { text, project_id: 'plant', chunk_size: 32 });
    assert.ok(intoDefault.chunksIndexed >= 3, `${intoDefault.chunksIndexed} chunks`);
    assert.deepEqual([intoDefault.collection, intoDefault.inserted, intoDefault.skippedDuplicates], ['default', intoDefault.chunksIndexed, 0]);
    // The same text in another collection is new there.
    const intoManuals = await ok('push', { text, project_id: 'plant', collection: 'manuals', chunk_size: 32 });
    assert.deepEqual([intoManuals.collection, intoManuals.inserted, intoManuals.skippedDuplicates], ['manuals', intoManuals.chunksIndexed, 0]);
    // Across two calls (no source_uri): every chunk of the second push is skipped, nothing is written.
    const twice = await ok('push', { text, project_id: 'plant', collection: 'manuals', chunk_size: 32 });
    assert.deepEqual([twice.chunksIndexed, twice.inserted, twice.updated, twice.skippedDuplicates, twice.tx_id], [intoManuals.chunksIndexed, 0, 0, intoManuals.chunksIndexed, 0]);
    assert.deepEqual(twice.ids.skipped.sort(), intoManuals.ids.inserted.sort(), 'the skipped chunks are the ones stored in this collection');

    const listed = await collectionsOf('plant');
    assert.equal(named(listed, 'default')?.chunks, intoDefault.chunksIndexed);
    assert.equal(named(listed, 'manuals')?.chunks, intoManuals.chunksIndexed);
    assert.equal(named(listed, 'manuals')?.documents, 1);
  });

  test('search and query filtered by collection see only that collection; hits name their collection', async () => {
    await ok('new_collection', { name: 'kilns', project_id: 'studio' });
    const inKilns = await ok('store', { content: 'The glaze kiln fires at 1240 degrees for stoneware.', project_id: 'studio', collection: 'kilns' });
    assert.equal(inKilns.collection, 'kilns');
    const inDefault = await ok('store', { content: 'The test kiln fires at 1240 degrees for porcelain.', project_id: 'studio' });
    assert.equal(inDefault.collection, 'default');

    const all = await ok('search', { query_text: 'kiln fires 1240 degrees', project_id: 'studio', score_threshold: 0 });
    assert.deepEqual(new Set(all.hits.map((h: { id: string }) => h.id)), new Set([inKilns.id, inDefault.id]), 'unfiltered, both');
    const onlyKilns = await ok('search', { query_text: 'kiln fires 1240 degrees', project_id: 'studio', collection: 'kilns', score_threshold: 0 });
    assert.deepEqual(
      onlyKilns.hits.map((h: { id: string; collection: string }) => [h.id, h.collection]),
      [[inKilns.id, 'kilns']],
    );
    assert.equal(onlyKilns.used_filters.collection, 'kilns');
    assert.doesNotMatch(onlyKilns.context, /porcelain/);
    // Without a project, the collection filter applies across projects.
    const anyProject = await ok('search', { query_text: 'kiln fires 1240 degrees', collection: 'kilns', score_threshold: 0 });
    assert.deepEqual(
      anyProject.hits.map((h: { id: string }) => h.id),
      [inKilns.id],
    );
    const queried = await ok('query', { query: 'kiln 1240 degrees', project_id: 'studio', collection: 'default' });
    assert.deepEqual(
      queried.items.map((i: { id: string }) => i.id),
      [inDefault.id],
    );
  });

  test('an unknown collection answers INVALID_PARAMS naming the existing ones, and writes nothing', async () => {
    const before = await ok('metrics', { project_id: 'plant' });
    for (const [tool, args] of [
      ['search', { query_text: 'valve', project_id: 'plant', collection: 'manual' }],
      ['query', { query: 'valve', project_id: 'plant', collection: 'manual' }],
      ['push', { text: documentAbout('pump', 4), project_id: 'plant', collection: 'manual' }],
      ['store', { content: 'A pump note.', project_id: 'plant', collection: 'manual' }],
      ['metrics', { project_id: 'plant', collection: 'manual' }],
    ] as const) {
      const error = toolError(await raw(tool, args));
      assert.equal(error?.code, 'INVALID_PARAMS', tool);
      assert.match(error.message, /Unknown collection "manual" in project "plant"\. Existing collections: default, manuals\./, tool);
      assert.deepEqual(error.details.collections, ['default', 'manuals'], tool);
    }
    // Across projects, the names of every project are offered.
    const anywhere = toolError(await raw('search', { query_text: 'valve', collection: 'manual' }));
    assert.match(anywhere!.message, /in any project\. Existing collections: default, kilns, manuals\./);
    assert.deepEqual(await ok('metrics', { project_id: 'plant' }), before, 'the failed writes changed nothing');
  });

  test('new_collection is one logged transaction: undo removes it, redo brings it back', async () => {
    const created = await ok('new_collection', { name: 'scratch', project_id: 'plant' });
    const history = await ok('history', { limit: 1 });
    assert.equal(history.items[0].tx_id, created.tx_id);
    assert.equal(history.items[0].op, 'new_collection');
    assert.deepEqual(history.items[0].changes, [{ entity: 'collection', entity_id: created.id, change_type: 'create' }]);

    const undone = await ok('undo', {});
    assert.deepEqual(undone.reverted_tx_ids, [created.tx_id]);
    assert.deepEqual(undone.entities, [{ entity: 'collection', entity_id: created.id, change_type: 'delete' }]);
    assert.equal(named(await collectionsOf('plant'), 'scratch'), undefined);
    assert.equal(toolError(await raw('search', { query_text: 'valve', project_id: 'plant', collection: 'scratch' }))?.code, 'INVALID_PARAMS');

    const redone = await ok('undo', { redo: true });
    assert.deepEqual(redone.entities, [{ entity: 'collection', entity_id: created.id, change_type: 'create' }]);
    assert.equal(named(await collectionsOf('plant'), 'scratch')?.declared, true);
    assert.equal((await ok('search', { query_text: 'valve', project_id: 'plant', collection: 'scratch', score_threshold: 0 })).hits.length, 0);
  });

  test('metrics are counted from the stored entries: they follow pushes, stores and deletes', async () => {
    await ok('new_collection', { name: 'logs', project_id: 'metrics' });
    const empty = (await ok('metrics', { project_id: 'metrics', collection: 'logs' })) as Metrics;
    assert.deepEqual([empty.documentsIndexed, empty.chunksIndexed, empty.lastChunkSize, empty.memories, empty.bytes], [0, 0, null, 0, 0]);

    const first = await ok('push', { text: documentAbout('boiler', 10), project_id: 'metrics', collection: 'logs', source_uri: 'file://boiler.md', chunk_size: 32 });
    const afterOne = (await ok('metrics', { project_id: 'metrics', collection: 'logs' })) as Metrics;
    assert.deepEqual([afterOne.documentsIndexed, afterOne.chunksIndexed, afterOne.lastChunkSize], [1, first.chunksIndexed, 32]);
    assert.ok(afterOne.bytes > 0);

    const second = await ok('push', { text: documentAbout('chiller', 10), project_id: 'metrics', collection: 'logs', chunk_size: 48 });
    const note = 'The chiller was serviced on Monday.';
    const stored = await ok('store', { content: note, project_id: 'metrics', collection: 'logs' });
    const afterTwo = (await ok('metrics', { project_id: 'metrics', collection: 'logs' })) as Metrics;
    assert.deepEqual([afterTwo.documentsIndexed, afterTwo.chunksIndexed, afterTwo.lastChunkSize, afterTwo.memories], [2, first.chunksIndexed + second.chunksIndexed, 48, 1]);
    assert.ok(afterTwo.bytes > afterOne.bytes);
    // The project-wide figures include the default collection (empty here) and the per-collection rows add up.
    const project = (await ok('metrics', { project_id: 'metrics' })) as Metrics;
    assert.equal(project.chunksIndexed, afterTwo.chunksIndexed);
    assert.deepEqual(
      project.collections.map((c) => c.name),
      ['logs'],
    );

    await ok('delete', { id: stored.id });
    const afterDelete = (await ok('metrics', { project_id: 'metrics', collection: 'logs' })) as Metrics;
    assert.equal(afterDelete.memories, 0);
    assert.equal(afterDelete.bytes, afterTwo.bytes - Buffer.byteLength(note));
  });
});
