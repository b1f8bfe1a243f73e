import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, CreateMessageRequest } from '@modelcontextprotocol/sdk/types.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { citation } from '../../src/ids.js';
import { createLogger } from '../../src/log.js';
import { SUMMARY_JOB_MIN_SOURCES } from '../../src/services/summaries.js';
import { tempDir } from '../helpers/cli.js';
import { inMemoryClient } from '../helpers/in-memory.js';

// The real app and MCP server in process; the client is the SDK's, over its in-memory pair, so it
// can declare sampling and answer sampling/createMessage like an agent's host would.
describe('summarize (toolset summaries)', () => {
  let app: App;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  const clients: Client[] = [];
  const ids: string[] = [];
  let start: string;

  before(async () => {
    dir = await tempDir();
    app = await createApp(loadConfig({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_TOOLSETS: 'core,summaries,bulk' }), createLogger('warn'));
    const client = await connect();
    start = new Date(Date.now() - 1_000).toISOString();
    for (const content of [
      'The team chose Postgres for the ledger service. Backups run nightly at two.',
      'Alice moved the deploy window to Thursday afternoons.',
      'The ledger service now writes audit rows for every transfer. Backups run nightly at two.',
    ]) {
      ids.push((await ok(client, 'store', { content, project_id: 'ledger' })).id);
    }
    await ok(client, 'store', { content: 'An unrelated note about the cafeteria menu.', project_id: 'other' });
  });
  after(async () => {
    for (const c of clients) await c.close();
    await app.close();
    await dir.remove();
  });

  async function connect(opts: { sampling?: (req: CreateMessageRequest) => string } = {}): Promise<Client> {
    const client = await inMemoryClient(app, { name: 'summarize-test', actor: `inproc-${clients.length}`, sampling: opts.sampling });
    clients.push(client);
    return client;
  }

  async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
    const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
    assert.equal(r.isError, undefined, `${name}: ${JSON.stringify(r.content)}`);
    return r.structuredContent;
  }

  test('without sampling: salient sentences in time order, each cited, duplicates once', async () => {
    const client = await connect();
    const r = await ok(client, 'summarize', { project_id: 'ledger', time_range: { start } });
    assert.equal(r.method, 'extractive');
    assert.equal(r.sources_read, 3);
    const lines = r.summary.split('\n');
    assert.ok(lines.length >= 2, r.summary);
    const cited = lines.map((line: string) => ids.findIndex((id) => line.endsWith(citation(id))));
    assert.ok(!cited.includes(-1), `every sentence ends with its source's citation: ${r.summary}`);
    assert.deepEqual(
      cited,
      [...cited].sort((a: number, b: number) => a - b),
      'sentences come in the order their memories were recorded',
    );
    assert.equal(r.summary.split('Backups run nightly at two.').length - 1, 1, 'a repeated sentence appears once');
    assert.ok(!r.summary.includes('cafeteria'), 'other projects stay out');
    assert.deepEqual(r.source_memory_ids, [...new Set(cited.map((i: number) => ids[i]))]);
  });

  test('with sampling: the client model writes it and the prompt carries the cited memories', async () => {
    let prompt = '';
    const client = await connect({
      sampling: (req) => {
        prompt = (req.params.messages[0]!.content as { text: string }).text;
        return `Postgres backs the ledger ${citation(ids[0]!)}; deploys moved to Thursdays ${citation(ids[1]!)}.`;
      },
    });
    const r = await ok(client, 'summarize', { project_id: 'ledger', time_range: { start } });
    assert.equal(r.method, 'sampling');
    assert.equal(r.model, 'test-model-1');
    assert.match(r.summary, /Thursdays/);
    assert.deepEqual(r.source_memory_ids, ids);
    for (const id of ids) assert.ok(prompt.includes(citation(id)), 'each source is in the prompt with its citation');
    assert.ok(!prompt.includes('cafeteria'));
  });

  test('store: true keeps the summary as a searchable memory linked to its sources; undo removes it', async () => {
    const client = await connect();
    const r = await ok(client, 'summarize', { project_id: 'ledger', time_range: { start }, store: true });
    assert.ok(r.stored_id);
    assert.ok(r.tx_id > 0);
    const found = async () =>
      (await ok(client, 'search', { query_text: r.summary.split('\n')[0], project_id: 'ledger', limit: 10, score_threshold: 0 })).hits.map((h: any) => h.id);
    assert.ok((await found()).includes(r.stored_id), 'later searches find the stored summary');
    const again = await ok(client, 'summarize', { project_id: 'ledger', time_range: { start } });
    assert.equal(again.sources_read, 3, 'a stored summary is not itself summarized again');
    await ok(client, 'undo', {});
    assert.ok(!(await found()).includes(r.stored_id), 'undo took the summary away');
  });

  test('an empty range answers clearly, not an error', async () => {
    const client = await connect();
    const r = (await client.callTool({ name: 'summarize', arguments: { time_range: { start: '2001-01-01T00:00:00Z', end: '2001-01-02T00:00:00Z' } } })) as CallToolResult;
    assert.equal(r.isError, undefined);
    const s = r.structuredContent as any;
    assert.equal(s.sources_read, 0);
    assert.deepEqual(s.source_memory_ids, []);
    assert.equal(s.stored_id, null);
    assert.match(JSON.stringify(r.content), /nothing to summarize/);
  });

  test('a large range runs as a job and reports progress', async () => {
    const client = await connect();
    const base = Date.parse('2020-03-01T00:00:00Z');
    const records = Array.from({ length: SUMMARY_JOB_MIN_SOURCES + 10 }, (_, i) => ({
      type: 'memory',
      content: `Build ${i} of the archive service passed on runner ${i % 7}.`,
      created_at: new Date(base + i * 60_000).toISOString(),
    }));
    assert.equal((await ok(client, 'import_records', { records, project_id: 'archive' })).inserted, records.length);
    const progress: number[] = [];
    const r = (await client.callTool(
      { name: 'summarize', arguments: { project_id: 'archive', time_range: { start: '2020-03-01T00:00:00Z', end: '2020-03-02T00:00:00Z' } } },
      undefined,
      {
        onprogress: (p) => progress.push(p.progress),
      },
    )) as CallToolResult;
    assert.equal(r.isError, undefined, JSON.stringify(r.content));
    const s = r.structuredContent as any;
    assert.match(s.job_id, /^summarize-/);
    assert.equal(s.sources_read, records.length);
    assert.equal(s.method, 'extractive');
    assert.ok(progress.length > 0, 'progress reached the caller');
    const cited = s.source_memory_ids.map((id: string) => s.summary.indexOf(citation(id)));
    assert.deepEqual(
      cited,
      [...cited].sort((a: number, b: number) => a - b),
      'citations in time order',
    );
  });

  test('time_range is required and validated', async () => {
    const client = await connect();
    const r = (await client.callTool({ name: 'summarize', arguments: { time_range: { start: '2026-02-01T00:00:00Z', end: '2026-01-01T00:00:00Z' } } })) as CallToolResult;
    assert.equal(r.isError, true);
  });
});
