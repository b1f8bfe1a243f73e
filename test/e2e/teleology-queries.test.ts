import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { quadrantOf } from '../../src/utl/utl.js';
import { tempDir, toolError } from '../helpers/cli.js';
import { inMemoryClient } from '../helpers/in-memory.js';

// gwt_compute_delta_sc, search_teleological and fuse_embeddings (issue 11), in process.
describe('ΔS/ΔC between memories, purpose-ranked search, weighted fusion', () => {
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

  before(async () => {
    dir = await tempDir();
    app = await createApp(loadConfig({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_TOOLSETS: 'all', CONTEXT_GRAPH_AUTO_EDGES: 'off' }), createLogger('warn'));
    client = await inMemoryClient(app, { name: 'teleology-queries-test', actor: 'tq-test' });
    const memories: Record<string, string> = {
      deploy: 'The payments team deploys the billing service every Friday afternoon.',
      deploy2: 'The payments team deploys the billing service every Friday afternoon!',
      outage: 'The checkout outage happened because the database ran out of connections.',
      code: 'Call parseHttpRequest(timeoutMs) from src/net/httpClient.ts to read a request.',
      prose: 'We parse every HTTP request carefully and time out a slow request after a while; the request parser is strict.',
      lunch: 'Dana prefers sushi for the Thursday team lunch at Umami on 5th Street.',
    };
    for (const [key, content] of Object.entries(memories)) id[key] = (await ok('store', { content, project_id: 'tq' })).id;
    for (const key of Object.keys(memories)) {
      for (let i = 0; (await ok('compute_teleological_vector', { id: id[key] })).status !== 'ready'; i++) {
        assert.ok(i < 400, `no fingerprint for ${key}`);
        await new Promise((res) => setTimeout(res, 25));
      }
    }
  });
  after(async () => {
    await client.close();
    await app.close();
    await dir.remove();
  });

  test('gwt_compute_delta_sc: a near twin is less surprising than an unrelated text; the seed name is an alias; the threshold sets the quadrants', async () => {
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'gwt_compute_delta_sc'));
    assert.ok(!tools.some((t) => t.name.includes('/')), 'MCP tool names cannot hold "/"');
    const twin = await ok('gwt_compute_delta_sc', { node_id: id.deploy, target_id: id.deploy2 });
    assert.equal(twin.kind, 'delta_sc:v1');
    const stranger = await ok('gwt_compute_delta_sc', { node_id: id.deploy, candidate_text: 'Jupiter has dozens of known moons and a great red spot.' });
    assert.equal(stranger.target_id, null);
    assert.ok(twin.delta_s < stranger.delta_s, `twin ΔS ${twin.delta_s} < unrelated ΔS ${stranger.delta_s}`);
    const e1 = (r: any) => r.spaces.find((s: any) => s.space === 'E1');
    assert.ok(e1(twin).similarity > 0.9 && e1(twin).similarity > e1(stranger).similarity);
    assert.ok(twin.learning >= 0 && twin.learning <= 1);
    const alias = await ok('gwt/compute_delta_sc', { old_node_id: id.deploy, new_node_id: id.deploy2 });
    assert.deepEqual(alias, twin);
    const low = await ok('gwt_compute_delta_sc', { node_id: id.deploy, target_id: id.deploy2, johari_threshold: 0.35 });
    const high = await ok('gwt_compute_delta_sc', { node_id: id.deploy, target_id: id.deploy2, johari_threshold: 0.65 });
    for (const r of [low, high]) for (const s of r.spaces) assert.equal(s.johari, quadrantOf(s.delta_s, s.delta_c, r.johari_threshold), JSON.stringify(s));
    assert.ok(
      low.spaces.some((s: any, i: number) => s.johari !== high.spaces[i].johari),
      `some space changes quadrant between thresholds: ${JSON.stringify([low.spaces, stranger.spaces])}`,
    );
  });

  test('gwt_compute_delta_sc validation: exactly one target, threshold bounds, unknown nodes', async () => {
    assert.equal(toolError(await raw('gwt_compute_delta_sc', { node_id: id.deploy }))!.code, 'INVALID_PARAMS');
    assert.equal(toolError(await raw('gwt_compute_delta_sc', { node_id: id.deploy, target_id: id.deploy2, candidate_text: 'x' }))!.code, 'INVALID_PARAMS');
    assert.equal(toolError(await raw('gwt_compute_delta_sc', { node_id: id.deploy, candidate_text: 'x', johari_threshold: 0.7 }))!.details.issues[0].maximum, 0.65);
    assert.equal(toolError(await raw('gwt_compute_delta_sc', { node_id: '01JD3Z8Y6W2M4Q9R7T5V1X3B6C', candidate_text: 'x' }))!.code, 'NODE_NOT_FOUND');
  });

  test('search_teleological: alignment_weight moves the ranking from relevance to purpose; a memory aligns fully with its own purpose', async () => {
    const run = (extra: Record<string, unknown>) => ok('search_teleological', { query: 'http request timeout', project_id: 'tq', limit: 6, ...extra });
    const relevance = await run({ profile: 'code', alignment_weight: 0 });
    assert.equal(relevance.kind, 'search_teleological:v1');
    assert.equal(relevance.goal, 'code');
    for (const h of relevance.hits) assert.equal(h.score, h.relevance);
    const purpose = await run({ profile: 'code', alignment_weight: 1 });
    for (const h of purpose.hits) assert.equal(h.score, h.alignment ?? 0);
    assert.ok(purpose.hits.every((h: any, i: number) => i === 0 || h.score <= purpose.hits[i - 1].score));
    const own = await run({ goal_node_id: id.code, alignment_weight: 1 });
    assert.equal(own.hits[0].id, id.code);
    assert.equal(own.hits[0].alignment, 1);
    const cut = own.hits[Math.floor(own.hits.length / 2)].alignment;
    const strict = await run({ goal_node_id: id.code, alignment_weight: 1, min_alignment: cut });
    assert.ok(strict.hits.length < own.hits.length || own.hits.every((h: any) => h.alignment >= cut));
    assert.ok(strict.hits.every((h: any) => h.alignment >= cut));
    const bad = toolError(await raw('search_teleological', { query: 'x', alignment_weight: 1.5 }))!;
    assert.equal(bad.details.issues[0].maximum, 1);
    assert.equal(toolError(await raw('search_teleological', { query: 'x', profile: 'nope' }))!.code, 'INVALID_PARAMS');
    assert.equal(toolError(await raw('search_teleological', { query: 'x', limit: 51 }))!.details.issues[0].maximum, 50);
  });

  test('fuse_embeddings: the weights decide the fused ranking, shown beside the default ranking', async () => {
    const e7 = await ok('fuse_embeddings', { node_id: id.code, weights: { E7: 1 }, limit: 50 });
    assert.equal(e7.kind, 'fused_embeddings:v1');
    assert.equal(e7.fused.spaces.find((s: any) => s.space === 'E7').share, 1);
    assert.equal(
      e7.fused.dims,
      e7.fused.spaces.filter((s: any) => s.share > 0 && s.dim > 0).reduce((n: number, s: any) => n + s.dim, 0),
    );
    assert.ok(!e7.ranking.some((h: any) => h.id === id.code), 'the source is not its own neighbour');
    for (const h of e7.ranking) assert.ok(Math.abs(h.score - (h.by_space.E7 ?? 0)) < 1e-3, JSON.stringify(h));
    assert.ok(e7.ranking.every((h: any, i: number) => h.rank === i + 1));
    assert.equal(e7.moved, e7.ranking.filter((h: any) => h.rank !== h.default_rank).length);
    const e1 = await ok('fuse_embeddings', { text: 'parse an http request with a timeout', weights: { E1: 1 }, project_id: 'tq', limit: 50 });
    assert.equal(e1.source_id, null);
    for (const h of e1.ranking) assert.ok(Math.abs(h.score - (h.by_space.E1 ?? 0)) < 1e-3);
    const profile = await ok('fuse_embeddings', { node_id: id.code, profile: 'code' });
    assert.equal(profile.profile, 'code');
    assert.ok(Math.abs(profile.fused.spaces.reduce((s: number, x: any) => s + x.share, 0) - 1) < 1e-3);
    assert.equal(toolError(await raw('fuse_embeddings', { node_id: id.code, text: 'x' }))!.code, 'INVALID_PARAMS');
    assert.equal(toolError(await raw('fuse_embeddings', { node_id: id.code, weights: { E1: 11 } }))!.details.issues[0].maximum, 10);
    assert.equal(toolError(await raw('fuse_embeddings', { node_id: id.code, weights: { E99: 1 } }))!.code, 'INVALID_PARAMS');
  });
});
