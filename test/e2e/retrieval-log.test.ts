import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { pruneRetrievals } from '../../src/store/retrieval-log-repo.js';
import { tempDir } from '../helpers/cli.js';
import { inMemoryClient } from '../helpers/in-memory.js';

// The retrieval log (db/075) is what the learning signals read: it must hold what each search
// and query actually returned, per session and project, with each signal's ranks.
describe('retrieval log: what search and query returned', () => {
  let app: App;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let client: Client;

  before(async () => {
    dir = await tempDir();
    app = await createApp(loadConfig({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_AUTO_EDGES: 'off' }), createLogger('warn'));
    client = await inMemoryClient(app, { name: 'retrieval-log-test', actor: 'inproc-log' });
  });
  after(async () => {
    await client.close();
    await app.close();
    await dir.remove();
  });

  async function ok(name: string, args: Record<string, unknown>): Promise<any> {
    const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
    assert.equal(r.isError, undefined, `${name}: ${JSON.stringify(r.content)}`);
    return r.structuredContent;
  }

  test('a search is logged with its hits in order, their signal ranks and each signal top list', async () => {
    const backup = await ok('store', { content: 'The nightly database backup runs at 02:00 UTC.', project_id: 'ops' });
    await ok('store', { content: 'Backups are kept for thirty days in the cold bucket.', project_id: 'ops' });
    await ok('store', { content: 'The cafeteria serves soup on Fridays.', project_id: 'life' });
    const found = await ok('search', { query_text: 'when does the database backup run', project_id: 'ops', score_threshold: 0 });
    const [logged] = await app.services.retrievalLog.recent({ projectId: 'ops', strictProject: true, limit: 1 });
    assert.ok(logged, 'the search was logged');
    assert.equal(logged.tool, 'search');
    assert.equal(logged.project_id, 'ops');
    assert.equal(logged.query, 'when does the database backup run');
    assert.deepEqual(
      logged.hits.map((h) => h.id),
      found.hits.map((h: { id: string }) => h.id),
    );
    assert.equal(logged.hits[0]!.id, backup.id);
    assert.equal(logged.hits[0]!.signals.lexical, 1, 'the backup memory is the lexical signal’s first');
    assert.ok(logged.signal_top.lexical!.includes(logged.hits[0]!.nid));
    assert.equal(logged.hits.length, 2, 'only the filtered project’s two memories');
  });

  test('query is logged too, and a search over every project is kept apart from a project filter', async () => {
    await ok('query', { query: 'soup' });
    const [all] = await app.services.retrievalLog.recent({ limit: 1 });
    assert.equal(all!.tool, 'query');
    assert.equal(all!.project_id, null);
    assert.ok(all!.hits.some((h) => h.signals.lexical !== undefined));
    const strict = await app.services.retrievalLog.recent({ projectId: 'life', strictProject: true, limit: 10 });
    assert.equal(strict.length, 0, 'no retrieval was filtered to project life');
    const loose = await app.services.retrievalLog.recent({ projectId: 'life', limit: 10 });
    assert.equal(loose[0]!.id, all!.id, 'an unfiltered retrieval counts for every project');
  });

  test('pruning keeps the newest rows', async () => {
    for (let i = 0; i < 3; i++) await ok('search', { query_text: `backup ${i}` });
    const before = await app.services.retrievalLog.recent({ limit: 100 });
    assert.equal(await pruneRetrievals(app.db, 2), before.length - 2);
    const kept = await app.services.retrievalLog.recent({ limit: 100 });
    assert.deepEqual(
      kept.map((r) => r.id),
      before.slice(0, 2).map((r) => r.id),
    );
  });
});
