import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, childEnv, httpClient, startServe, tempDir } from '../helpers/cli.js';

function textOf(res: { messages: Array<{ role: string; content: { type: string; text?: string } }> }): string {
  assert.equal(res.messages.length, 1);
  assert.equal(res.messages[0]!.role, 'user');
  assert.equal(res.messages[0]!.content.type, 'text');
  return res.messages[0]!.content.text!;
}

describe('prompts over Streamable HTTP', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let server: Awaited<ReturnType<typeof startServe>>;
  let client: Client;
  let entryId: string;

  before(async () => {
    dir = await tempDir();
    server = await startServe(childEnv({ CONTEXT_GRAPH_DATA_DIR: dir.path }));
    client = await httpClient(server.mcpUrl);
    for (const project_id of ['payments', 'platform', 'default']) {
      const r = await call(client, 'store', { content: `The ${project_id} team deploys on Tuesdays.`, project_id });
      entryId = (r.structuredContent as { id: string }).id;
    }
  });
  after(async () => {
    await client?.close();
    await server?.stop();
    await dir?.remove();
  });

  test('prompts/list offers ingesting, retrieving and correcting, with described arguments', async () => {
    const { prompts } = await client.listPrompts();
    const byName = new Map(prompts.map((p) => [p.name, p]));
    assert.deepEqual([...byName.keys()].sort(), ['correct_stale_fact', 'ingest_memory', 'retrieve_context']);
    const args = (name: string) => Object.fromEntries(byName.get(name)!.arguments!.map((a) => [a.name, a.required]));
    assert.deepEqual(args('ingest_memory'), { text: true, project_id: false, memory_type: false });
    assert.deepEqual(args('retrieve_context'), { question: true, project_id: false });
    assert.deepEqual(args('correct_stale_fact'), { fact_or_id: true, correction: true, project_id: false });
    for (const p of prompts) {
      assert.ok((p.description ?? '').length > 30);
      for (const a of p.arguments ?? []) assert.ok((a.description ?? '').length > 5, `${p.name}.${a.name} described`);
    }
  });

  test('ingest_memory fills in the text and project and names the tools that write', async () => {
    const res = await client.getPrompt({ name: 'ingest_memory', arguments: { text: 'We moved CI to GitHub Actions in May.', project_id: 'platform' } });
    const text = textOf(res);
    assert.ok(text.includes('We moved CI to GitHub Actions in May.'));
    assert.ok(text.includes('"project_id": "platform"'));
    assert.ok(text.includes('`store`'));
    assert.ok(text.includes('`search`'));
    assert.ok(/Nothing is saved unless you call/.test(text), 'no write without a tool call');
    assert.ok(!/\{\{|\$\{|undefined/.test(text), 'no unfilled placeholders');
  });

  test('retrieve_context is read-only and cites ids', async () => {
    const text = textOf(await client.getPrompt({ name: 'retrieve_context', arguments: { question: 'When does payments deploy?' } }));
    assert.ok(text.includes('"query_text": "When does payments deploy?"'));
    assert.ok(/read-only: do not call store, update, delete or undo/.test(text));
    assert.ok(text.includes('knowledge://entries/{id}'));
    assert.ok(!/\$\{|undefined/.test(text));
  });

  test('correct_stale_fact goes through update (plain or with supersedes) and mentions undo', async () => {
    const text = textOf(await client.getPrompt({ name: 'correct_stale_fact', arguments: { fact_or_id: entryId, correction: 'Deploys moved to Thursdays.' } }));
    assert.ok(text.includes(`knowledge://entries/${entryId}`));
    assert.ok(text.includes('Deploys moved to Thursdays.'));
    assert.ok(text.includes('`update`') && text.includes('"supersedes": true') && text.includes('`undo` with {"tx_id"'));
    assert.ok(/nothing changes unless a tool call succeeds/.test(text));
  });

  test('missing required arguments are refused', async () => {
    await assert.rejects(client.getPrompt({ name: 'retrieve_context', arguments: {} }), /question/);
    await assert.rejects(client.getPrompt({ name: 'no_such_prompt', arguments: {} }), /not found/);
  });

  test('arguments complete: project ids, memory types, entry ids', async () => {
    const projects = await client.complete({ ref: { type: 'ref/prompt', name: 'retrieve_context' }, argument: { name: 'project_id', value: 'p' } });
    assert.deepEqual(projects.completion.values, ['payments', 'platform']);
    const types = await client.complete({ ref: { type: 'ref/prompt', name: 'ingest_memory' }, argument: { name: 'memory_type', value: 'e' } });
    assert.deepEqual(types.completion.values, ['episodic']);
    const ids = await client.complete({ ref: { type: 'ref/prompt', name: 'correct_stale_fact' }, argument: { name: 'fact_or_id', value: entryId.slice(0, 20) } });
    assert.ok(ids.completion.values.includes(entryId));
    const none = await client.complete({ ref: { type: 'ref/prompt', name: 'correct_stale_fact' }, argument: { name: 'correction', value: 'x' } });
    assert.deepEqual(none.completion.values, []);
  });
});
