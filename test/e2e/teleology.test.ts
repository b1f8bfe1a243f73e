import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, toolError, useEmbeddedServer } from '../helpers/cli.js';

/** Polls compute_teleological_vector until the fingerprint job has run for `id`. */
async function fingerprintOf(client: Client, id: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const r = await call(client, 'compute_teleological_vector', { id });
    assert.equal(r.isError, undefined, JSON.stringify(r.content));
    const s = r.structuredContent as any;
    if (s.status === 'ready') return s;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`no fingerprint for ${id}`);
}

describe('teleological and UTL tools over Streamable HTTP (embedded mode)', () => {
  let client: Client;
  const ids: Record<string, string> = {};
  useEmbeddedServer((f) => ({ client } = f), { CONTEXT_GRAPH_TOOLSETS: 'all' });

  const store = async (key: string, content: string, project = 'tele') => {
    const r = await call(client, 'store', { content, project_id: project });
    assert.equal(r.isError, undefined, JSON.stringify(r.content));
    ids[key] = (r.structuredContent as { id: string }).id;
  };

  test('tools/list publishes the new tools in the teleological and utl toolsets', async () => {
    const { tools } = await client.listTools();
    const of = (name: string) => tools.find((t) => t.name === name)?._meta?.['context-graph/toolset'];
    for (const name of ['search_graph', 'compute_teleological_vector', 'manage_teleological_profile', 'update_synergy_matrix']) assert.equal(of(name), 'teleological', name);
    assert.equal(of('utl_status'), 'utl');
    assert.equal(of('get_graph_manifest'), 'manifest');
    assert.equal(of('get_memetic_status'), 'manifest');
  });

  test('every stored memory gets a fingerprint over every embedded space, and utl_status aggregates them', async () => {
    await store('deploy', 'The payments team deploys the billing service every Friday afternoon.');
    await store('deploy2', 'The payments team deploys the billing service every Friday afternoon!');
    await store('outage', 'The checkout outage happened because the database ran out of connections.');
    await store('code', 'Call parseHttpRequest(timeoutMs) from src/net/httpClient.ts to read a request.');
    await store('prose', 'We parse every HTTP request carefully and time out a slow request after a while; the request parser is strict.');
    await store('lunch', 'Dana prefers sushi for the Thursday team lunch at Umami on 5th Street.');
    const first = await fingerprintOf(client, ids.deploy!);
    const twin = await fingerprintOf(client, ids.deploy2!);
    for (const fp of [first, twin]) {
      assert.ok(fp.spaces.length >= 10, `spaces ${fp.spaces.map((s: any) => s.space)}`);
      assert.ok(fp.learning >= 0 && fp.learning <= 1);
      for (const s of fp.spaces) assert.ok(['open', 'hidden', 'blind', 'unknown'].includes(s.johari));
    }
    // The first memory of a project knows nothing before it: all new. Its twin, written after
    // it, is far less surprising in the meaning spaces.
    const surprise = (fp: any, space: string) => fp.spaces.find((s: any) => s.space === space).surprise;
    assert.equal(surprise(first, 'E1'), 1);
    assert.ok(surprise(twin, 'E1') < 0.5, `twin ΔS(E1) ${surprise(twin, 'E1')}`);
    for (const id of Object.values(ids)) await fingerprintOf(client, id);

    const status = (await call(client, 'utl_status', { project_id: 'tele' })).structuredContent as any;
    assert.equal(status.fingerprinted, 6);
    assert.deepEqual(status.stages, { infancy: 6 });
    const e1 = status.spaces.find((s: any) => s.space === 'E1');
    assert.equal(e1.memories, 6);
    assert.equal(e1.johari.open + e1.johari.hidden + e1.johari.blind + e1.johari.unknown, 6);
    assert.ok(status.learning.median !== null);
  });

  test('search_graph: the code profile reorders a code-heavy result list, and L scales every score', async () => {
    const run = async (profile: string) =>
      (await call(client, 'search_graph', { query_text: 'http client timeout ms', project_id: 'tele', profile, limit: 6 })).structuredContent as any;
    const plain = await run('default');
    const code = await run('code');
    const rank = (r: any, key: string) => r.hits.findIndex((h: any) => h.id === ids[key]);
    assert.ok(rank(plain, 'prose') < rank(plain, 'code'), `default: ${plain.hits.map((h: any) => h.id)}`);
    assert.ok(rank(code, 'code') < rank(code, 'prose'), `code: ${JSON.stringify(code.hits.map((h: any) => [h.text.slice(0, 20), h.score, h.fused, h.learning, h.spaces]))}`);
    assert.ok(code.hits.find((h: any) => h.id === ids.code).spaces.E7, 'E7 found the identifier');
    for (const h of plain.hits) {
      assert.ok(h.learning !== null);
      assert.ok(Math.abs(h.score - h.fused * (1 + 0.5 * (h.learning - 0.5))) < 1e-3, JSON.stringify(h));
    }
    // Twins match a query alike; the one that taught the store more (higher L) comes first.
    const twins = (await call(client, 'search_graph', { query_text: 'payments team deploys billing service Friday', project_id: 'tele', limit: 2 })).structuredContent as any;
    assert.deepEqual(new Set(twins.hits.map((h: any) => h.id)), new Set([ids.deploy, ids.deploy2]));
    assert.notEqual(twins.hits[0].learning, twins.hits[1].learning);
    assert.ok(twins.hits[0].learning > twins.hits[1].learning);
  });

  test('manage_teleological_profile saves, lists, reads and deletes a profile that search_graph uses', async () => {
    const saved = await call(client, 'manage_teleological_profile', { action: 'save', name: 'names', weights: { E11: 2, E1: 0.1 }, description: 'names first' });
    assert.equal(saved.isError, undefined, JSON.stringify(saved.content));
    const list = (await call(client, 'manage_teleological_profile', {})).structuredContent as any;
    assert.ok(list.profiles.some((p: any) => p.name === 'names' && !p.builtin));
    assert.ok(list.profiles.some((p: any) => p.name === 'code' && p.builtin));
    const hits = (await call(client, 'search_graph', { query_text: 'Dana at Umami', project_id: 'tele', profile: 'names', limit: 3 })).structuredContent as any;
    assert.equal(hits.profile, 'names');
    assert.equal(hits.hits[0].id, ids.lunch);
    assert.deepEqual(Object.keys(hits.hits[0].spaces).sort(), ['E1', 'E11']);
    const bad = await call(client, 'manage_teleological_profile', { action: 'save', name: 'zero', weights: { E1: 0 } });
    assert.equal(toolError(bad)?.code, 'INVALID_PARAMS');
    const del = (await call(client, 'manage_teleological_profile', { action: 'delete', name: 'names' })).structuredContent as any;
    assert.equal(del.deleted, true);
    const gone = await call(client, 'search_graph', { query_text: 'Dana', profile: 'names' });
    assert.equal(toolError(gone)?.code, 'INVALID_PARAMS');
  });

  test('update_synergy_matrix moves the matrix and the learned profile follows it', async () => {
    const r = await call(client, 'update_synergy_matrix', { query_text: 'why did checkout fail', node_id: ids.outage, k: 3 });
    assert.equal(r.isError, undefined, JSON.stringify(r.content));
    const s = r.structuredContent as any;
    assert.equal(s.outcomes, 1);
    assert.ok(s.succeeded.length > 0 && s.succeeded.length < s.spaces.length, `succeeded ${s.succeeded}`);
    const i = s.spaces.indexOf(s.succeeded[0]);
    const miss = s.spaces.findIndex((x: string) => !s.succeeded.includes(x));
    assert.ok(s.matrix[i][i] > s.matrix[miss][miss], 'a space that found the memory scores above one that did not');
    const again = (await call(client, 'update_synergy_matrix', { query_text: 'why did checkout fail', node_id: ids.outage, k: 3 })).structuredContent as any;
    assert.equal(again.outcomes, 2);
    assert.ok(again.matrix[i][i] > s.matrix[i][i]);
    const learned = (await call(client, 'search_graph', { query_text: 'checkout', project_id: 'tele', profile: 'learned' })).structuredContent as any;
    assert.deepEqual(learned.weights, again.learned_weights);
    assert.equal(toolError(await call(client, 'update_synergy_matrix', { query_text: 'x', node_id: 'nope' }))?.code, 'NODE_NOT_FOUND');
  });

  test('get_graph_manifest and get_memetic_status count what was stored, per space with its model id', async () => {
    const m = (await call(client, 'get_graph_manifest', {})).structuredContent as any;
    assert.equal(m.spaces.length, 13);
    const tele = m.projects.find((p: any) => p.project_id === 'tele');
    assert.deepEqual(tele, { project_id: 'tele', nodes: 6, fingerprinted: 6 });
    assert.equal(m.nodes_by_kind.memory, 6);
    // All 13 spaces produce a vector for every memory, each under its model id.
    for (const s of m.spaces) {
      assert.equal(s.status, 'implemented', s.id);
      assert.ok(s.model_id, s.id);
      assert.equal(s.vectors, 6, s.id);
    }
    assert.equal(m.spaces.find((s: any) => s.id === 'E8').model_id, `graph-prop-v1+${m.spaces.find((s: any) => s.id === 'E1').model_id}`);
    assert.match(m.spaces.find((s: any) => s.id === 'E6').model_id, /^glove-expand-30k-n5-/);
    assert.match(m.spaces.find((s: any) => s.id === 'E12').model_id, /^maxsim-glove-rows-v1\+/);
    assert.equal(m.spaces.find((s: any) => s.id === 'E5').model_id, `causal-clauses-v1+${m.spaces.find((s: any) => s.id === 'E1').model_id}`);
    await store('late', 'Another memory about Dana and the lunch at Umami.', 'other');
    await fingerprintOf(client, ids.late!);
    const after = (await call(client, 'get_graph_manifest', {})).structuredContent as any;
    assert.deepEqual(
      after.projects.find((p: any) => p.project_id === 'other'),
      { project_id: 'other', nodes: 1, fingerprinted: 1 },
    );

    const st = (await call(client, 'get_memetic_status', { project_id: 'tele' })).structuredContent as any;
    assert.equal(st.memories, 6);
    assert.equal(st.fingerprinted, 6);
    const e1 = st.spaces.find((s: any) => s.space === 'E1');
    assert.ok(e1.entropy > 0 && e1.entropy <= 1 && e1.coherence > 0);
    const spaces = st.spaces.length;
    assert.equal(st.johari.open + st.johari.hidden + st.johari.blind + st.johari.unknown, 6 * spaces);
    assert.equal(typeof st.pending_jobs, 'number');
  });
});
