import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { tempDir } from '../helpers/cli.js';
import { inMemoryClient } from '../helpers/in-memory.js';

// Profile saves and deletes and synergy outcomes are transactions of the log (entity signal):
// `undo` takes each back, and what search_graph would read returns to what it was.
describe('manage_teleological_profile and update_synergy_matrix go through the transaction log', () => {
  let app: App;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let client: Client;

  before(async () => {
    dir = await tempDir();
    app = await createApp(loadConfig({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_AUTO_EDGES: 'off', CONTEXT_GRAPH_TOOLSETS: 'all' }), createLogger('warn'));
    client = await inMemoryClient(app, { name: 'teleology-undo', actor: 'teleology-undo' });
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
  const newest = async () => (await ok('history', { limit: 1 })).items[0];
  const saved = async () => (await ok('manage_teleological_profile', { action: 'list' })).profiles.find((p: any) => p.name === 'mine') ?? null;

  test('a profile save, a change and a delete are each undone', async () => {
    await ok('manage_teleological_profile', { action: 'save', name: 'mine', weights: { E7: 2, E1: 1 }, description: 'first' });
    const tx = await newest();
    assert.equal(tx.op, 'manage_teleological_profile');
    await ok('manage_teleological_profile', { action: 'save', name: 'mine', weights: { E7: 5 }, description: 'second' });
    assert.deepEqual((await saved()).weights, { E7: 5 });
    await ok('undo', {});
    assert.deepEqual((await saved()).weights, { E7: 2, E1: 1 }, 'the change is taken back');
    assert.equal((await saved()).description, 'first');
    await ok('manage_teleological_profile', { action: 'delete', name: 'mine' });
    assert.equal(await saved(), null);
    await ok('undo', {});
    assert.deepEqual((await saved()).weights, { E7: 2, E1: 1 }, 'the delete is taken back');
    await ok('undo', {});
    assert.equal(await saved(), null, 'and the first save');
  });

  test('a synergy outcome is undone: the matrix and the learned weights return to before', async () => {
    const m = await ok('store', { content: 'Call parseHttpRequest(timeoutMs) from src/net/httpClient.ts to read a request.', project_id: 'syn' });
    const empty = (await ok('search_graph', { query_text: 'parseHttpRequest', project_id: 'syn', profile: 'learned' })).profile.weights;
    const r = await ok('update_synergy_matrix', { query_text: 'parseHttpRequest timeout', node_id: m.id, k: 5 });
    assert.equal(r.outcomes, 1);
    const tx = await newest();
    assert.equal(tx.op, 'update_synergy_matrix');
    await ok('update_synergy_matrix', { query_text: 'parseHttpRequest timeout', node_id: m.id, k: 5 });
    const undone = await ok('undo', {});
    assert.equal(undone.entities[0].entity, 'signal');
    assert.equal(undone.entities[0].entity_id, 'synergy:syn');
    const again = await ok('update_synergy_matrix', { query_text: 'parseHttpRequest timeout', node_id: m.id, k: 5 });
    assert.equal(again.outcomes, 2, 'one outcome was taken back');
    await ok('undo', {});
    await ok('undo', {});
    const learned = (await ok('search_graph', { query_text: 'parseHttpRequest', project_id: 'syn', profile: 'learned' })).profile.weights;
    assert.deepEqual(learned, empty, 'no outcome left: the learned profile is the default again');
  });
});
