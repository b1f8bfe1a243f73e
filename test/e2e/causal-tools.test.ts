import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { tempDir, toolError } from '../helpers/cli.js';
import { inMemoryClient } from '../helpers/in-memory.js';

// omni_infer and query_causal (issue 11) over Causal edges and the E5 cause/effect space, in process.
describe('causal toolset: omni_infer and query_causal', () => {
  let app: App;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let client: Client;
  const id: Record<string, string> = {};

  const raw = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  const ok = async (name: string, args: Record<string, unknown>): Promise<any> => {
    const r = await raw(name, args);
    assert.equal(r.isError, undefined, `${name}: ${JSON.stringify(r.content)}`);
    return r.structuredContent;
  };

  const memories: Record<string, string> = {
    deploy: 'The Friday deploy failed because the database migration locked the users table.',
    logins: 'Customers could not log in on Saturday because the Friday deploy failed.',
    rollback: 'The team rolled back the release on Sunday because customers could not log in.',
    disk: 'The disk on db-7 filled up overnight.',
    observed: 'Users saw login errors all Saturday.',
    pasta: 'The cafeteria serves pasta on Wednesdays.',
    cat: 'Our cat sleeps on the radiator in winter.',
  };

  before(async () => {
    dir = await tempDir();
    app = await createApp(loadConfig({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_TOOLSETS: 'all', CONTEXT_GRAPH_AUTO_EDGES: 'off' }), createLogger('warn'));
    client = await inMemoryClient(app, { name: 'causal-test', actor: 'causal-test' });
    for (const [key, content] of Object.entries(memories)) id[key] = (await ok('store', { content, project_id: 'causal' })).id;
    const edge = (from: string, to: string, weight: number) =>
      ok('relate', { subject: id[from], predicate: 'caused', object: id[to], edge_type: 'Causal', weight, project_id: 'causal' });
    await edge('deploy', 'logins', 0.9);
    await edge('logins', 'rollback', 0.8);
    await edge('disk', 'deploy', 0.9);
    // E5 finds every memory once the embed job has run.
    for (let i = 0; ; i++) {
      const r = await raw('query_causal', { query: 'why did the deploy fail?', project_id: 'causal', limit: 50, follow_edges: false });
      if (!r.isError && (r.structuredContent as any).hits.length >= Object.keys(memories).length) break;
      assert.ok(i < 300, 'E5 vectors never arrived');
      await new Promise((res) => setTimeout(res, 50));
    }
  });
  after(async () => {
    await client.close();
    await app.close();
    await dir.remove();
  });

  test('query_causal answers "why" with the stated cause, and "effects" with the stated effect', async () => {
    const why = await ok('query_causal', { query: 'why did the deploy fail?', project_id: 'causal', limit: 3, follow_edges: false });
    assert.equal(why.kind, 'query_causal:v1');
    assert.equal(why.direction, 'causes');
    assert.equal(why.hits[0].id, id.deploy, JSON.stringify(why.hits));
    assert.match(why.hits[0].answer, /database migration locked the users table/);
    const effects = await ok('query_causal', { query: 'the database migration locked the users table', direction: 'effects', project_id: 'causal', limit: 3, follow_edges: false });
    assert.equal(effects.direction, 'effects');
    assert.equal(effects.hits[0].id, id.deploy);
    assert.match(effects.hits[0].answer, /Friday deploy failed/);
  });

  test('query_causal follows a stated cause over a Causal edge: the linked cause enters with the edge weight', async () => {
    const plain = await ok('query_causal', { query: 'why did the deploy fail?', project_id: 'causal', limit: 10, follow_edges: false });
    const followed = await ok('query_causal', { query: 'why did the deploy fail?', project_id: 'causal', limit: 10 });
    const disk = followed.hits.find((h: any) => h.id === id.disk);
    assert.equal(disk.via, id.deploy);
    const top = followed.hits.find((h: any) => h.id === id.deploy);
    assert.ok(Math.abs(disk.score - top.score * 0.9) < 1e-3, JSON.stringify(followed.hits));
    const before = plain.hits.find((h: any) => h.id === id.disk)?.score ?? 0;
    assert.ok(disk.score > before, `${disk.score} > ${before}`);
  });

  test('omni_infer forward follows the effect; max_hops changes what the graph reaches; target_id reports the chain', async () => {
    const fwd = await ok('omni_infer', { source_id: id.deploy, direction: 'forward' });
    assert.equal(fwd.kind, 'omni_infer:v1');
    assert.equal(fwd.inferences[0].id, id.logins, JSON.stringify(fwd.inferences));
    assert.equal(fwd.inferences[0].relation, 'effect');
    assert.equal(fwd.inferences[0].graph, 0.9);
    const rollback = fwd.inferences.find((h: any) => h.id === id.rollback);
    assert.equal(rollback.graph, 0.72);
    assert.equal(rollback.hops, 2);
    assert.ok(fwd.inferences.every((h: any, i: number) => i === 0 || h.score <= fwd.inferences[i - 1].score));
    const oneHop = await ok('omni_infer', { source_id: id.deploy, direction: 'forward', max_hops: 1 });
    const near = oneHop.inferences.find((h: any) => h.id === id.rollback);
    assert.ok(!near || (near.graph === 0 && near.score < rollback.score), JSON.stringify(near));

    const chain = await ok('omni_infer', { source_id: id.deploy, target_id: id.rollback });
    assert.deepEqual(chain.path, { found: true, ids: [id.deploy, id.logins, id.rollback], strength: 0.72 });
    const back = await ok('omni_infer', { source_id: id.rollback, direction: 'backward' });
    assert.equal(back.inferences[0].id, id.logins);
    assert.equal(back.inferences[0].relation, 'cause');
  });

  test('omni_infer abduction: the best explanations of an observed effect, each stating a cause, ranked', async () => {
    const r = await ok('omni_infer', { source_id: id.observed, direction: 'abduction', limit: 5 });
    assert.equal(r.inferences[0].id, id.logins, JSON.stringify(r.inferences));
    assert.match(r.inferences[0].clause, /Friday deploy failed/);
    // Unrelated plain statements explain nothing.
    for (const key of ['pasta', 'cat', 'disk']) assert.ok(!r.inferences.some((h: any) => h.id === id[key]), key);
    assert.ok(r.inferences.every((h: any) => h.clause !== null || h.graph > 0));
    // Scores are shown to 4 decimals: a threshold just under the best keeps the best alone.
    const strict = await ok('omni_infer', { source_id: id.observed, direction: 'abduction', min_score: r.inferences[0].score - 1e-4 });
    assert.deepEqual(
      strict.inferences.map((h: any) => h.id),
      [id.logins],
    );
  });

  test('validation: enum lists, bounds, unknown nodes', async () => {
    const dir = toolError(await raw('omni_infer', { source_id: id.deploy, direction: 'sideways' }))!;
    assert.deepEqual(dir.details.issues[0].allowed, ['forward', 'backward', 'bidirectional', 'abduction']);
    const hops = toolError(await raw('omni_infer', { source_id: id.deploy, max_hops: 6 }))!;
    assert.equal(hops.details.issues[0].maximum, 5);
    assert.equal(toolError(await raw('omni_infer', { source_id: '01JD3Z8Y6W2M4Q9R7T5V1X3B6C' }))!.code, 'NODE_NOT_FOUND');
    const qd = toolError(await raw('query_causal', { query: 'why', direction: 'sideways' }))!;
    assert.deepEqual(qd.details.issues[0].allowed, ['auto', 'causes', 'effects']);
    assert.equal(toolError(await raw('query_causal', { query: '' }))!.code, 'INVALID_PARAMS');
  });
});
