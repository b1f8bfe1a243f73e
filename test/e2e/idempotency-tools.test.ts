import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { tempDir, toolError } from '../helpers/cli.js';
import { inMemoryClient } from '../helpers/in-memory.js';

// The kit gives every mutating tool an optional idempotency_key (src/tools/kit/invoke.ts,
// src/services/idempotency.ts). A crash between commit and answer is simulated by erasing the
// saved answer of a committed call: what the key table holds when the process died after the
// commit and before the answer was saved.
describe('idempotency_key on every mutating tool', () => {
  let app: App;
  let client: Client;
  let dir: Awaited<ReturnType<typeof tempDir>>;

  before(async () => {
    dir = await tempDir();
    app = await createApp(loadConfig({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_TOOLSETS: 'all', CONTEXT_GRAPH_AUTO_EDGES: 'off' }), createLogger('warn'));
    client = await inMemoryClient(app, { name: 'idempotency-test', actor: 'inproc' });
  });
  after(async () => {
    await client.close();
    await app.close();
    await dir.remove();
  });

  const callTool = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  async function ok(name: string, args: Record<string, unknown>): Promise<{ payload: any; text: string }> {
    const r = await callTool(name, args);
    assert.equal(r.isError, undefined, `${name}: ${JSON.stringify(r.content)}`);
    return { payload: r.structuredContent, text: (r.content[0] as { text: string }).text };
  }
  const importanceOf = async (id: string) => (await app.db.query<{ importance: number }>(`select importance from nodes where id = $1`, [id]))[0]!.importance;
  const transactions = async () => Number((await app.db.query<{ n: number }>(`select count(*)::int as n from transactions`))[0]!.n);
  /** What the key table holds after a crash between the commit and the saved answer. */
  const loseAnswer = (key: string) => app.db.query(`update idempotency_keys set result = null where key = $1`, [key]);

  test('every mutating tool publishes idempotency_key; read-only tools and the session-only toolsets switch do not', async () => {
    const { tools } = await client.listTools();
    const keyed = tools.filter((t) => 'idempotency_key' in ((t.inputSchema.properties ?? {}) as object)).map((t) => t.name);
    for (const t of tools) {
      const mutating = t.annotations?.readOnlyHint === false && t.name !== 'toolsets';
      assert.equal(keyed.includes(t.name), mutating, `${t.name}: idempotency_key ${mutating ? 'missing' : 'not expected'}`);
    }
    assert.ok(keyed.length >= 20, `${keyed.length} mutating tools take a key`);
  });

  test('a retried boost with its key changes the importance once and answers the first result', async () => {
    const id = (await ok('store', { content: 'The on-call rota is posted every Friday at noon.' })).payload.id as string;
    const key = randomUUID();
    const args = { node_id: id, delta: 0.2, rationale: 'the rota matters to the whole team', idempotency_key: key };
    const first = await ok('boost_importance', args);
    const txBefore = await transactions();
    const retry = await ok('boost_importance', args);
    assert.deepEqual(retry.payload, first.payload, 'the retry answers the first result');
    assert.match(retry.text, /Already done by an earlier call with this idempotency_key/);
    assert.equal(await transactions(), txBefore, 'no transaction was written by the retry');
    assert.equal(Math.round((await importanceOf(id)) * 100) / 100, 0.7, 'boosted once: 0.5 + 0.2');

    // The same key with other arguments is a mistake, reported, and changes nothing.
    const reused = toolError(await callTool('boost_importance', { ...args, delta: 0.4 }));
    assert.equal(reused?.code, 'IDEMPOTENCY_KEY_REUSED');
    assert.equal(reused?.retryable, false);
    assert.equal(Math.round((await importanceOf(id)) * 100) / 100, 0.7);

    const short = toolError(await callTool('boost_importance', { ...args, idempotency_key: 'abc' }));
    assert.equal(short?.code, 'INVALID_PARAMS');
    assert.match(short?.message ?? '', /idempotency_key/);

    // Crash between commit and answer: the retry neither boosts again nor pretends nothing happened.
    await loseAnswer(key);
    const lost = toolError(await callTool('boost_importance', args));
    assert.equal(lost?.code, 'ALREADY_APPLIED');
    assert.equal(typeof lost?.details?.tx_id, 'number');
    assert.equal(await transactions(), txBefore);
    assert.equal(Math.round((await importanceOf(id)) * 100) / 100, 0.7);
  });

  test('a store whose answer was lost is rebuilt from the memory it wrote; an update retried writes one version', async () => {
    const key = randomUUID();
    const content = `Backups are restored weekly as a drill (${key.slice(0, 8)}).`;
    const first = await ok('store', { content, idempotency_key: key });
    await loseAnswer(key);
    const txBefore = await transactions();
    const retry = await ok('store', { content, idempotency_key: key });
    assert.equal(retry.payload.id, first.payload.id);
    assert.equal(retry.payload.tx_id, first.payload.tx_id);
    assert.equal(retry.payload.replayed, true);
    assert.equal(await transactions(), txBefore);
    const rows = await app.db.query(`select id from nodes where content = $1`, [content]);
    assert.equal(rows.length, 1, 'one memory');

    const updateKey = randomUUID();
    const update = { id: first.payload.id, content: `${content} Updated.`, idempotency_key: updateKey };
    const u1 = await ok('update', update);
    const u2 = await ok('update', update);
    assert.deepEqual(u2.payload, u1.payload);
    assert.equal(await transactions(), txBefore + 1, 'one update transaction for two calls');
  });

  test('an idempotent tool whose answer was lost runs again without writing twice; concurrent first uses make one write', async () => {
    const key = randomUUID();
    const args = { subject: 'billing-service', predicate: 'depends_on', object: `ledger-${key.slice(0, 6)}`, idempotency_key: key };
    const first = await ok('relate', args);
    await loseAnswer(key);
    const again = await ok('relate', args);
    assert.equal(again.payload.triples[0].id, first.payload.triples[0].id, 'the same triple');
    assert.equal(again.payload.triples[0].created, false, 'found, not created again');
    const saved = await app.db.query<{ result: unknown }>(`select result from idempotency_keys where key = $1`, [key]);
    assert.notEqual(saved[0]!.result, null, 'the rerun answer is saved for the next retry');

    const racing = randomUUID();
    const contents = `Concurrent first uses of one key (${racing.slice(0, 8)}).`;
    const answers = await Promise.all([1, 2, 3, 4].map(() => ok('store', { content: contents, idempotency_key: racing })));
    assert.equal(new Set(answers.map((a) => a.payload.id)).size, 1);
    assert.equal(answers.filter((a) => !a.payload.replayed).length, 1, 'exactly one of them wrote');
    assert.equal((await app.db.query(`select id from nodes where content = $1`, [contents])).length, 1);
  });
});
