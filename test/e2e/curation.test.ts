import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { citation, ulidToHex, uuidOf } from '../../src/ids.js';
import { call, toolError, useEmbeddedServer } from '../helpers/cli.js';

// Seed 001 §6.2 (TC-CUR-*), §6.4 TC-META-005/006, §6.6 TC-DIAG-004 and §6.7-style validation on
// the curation tools, over MCP Streamable HTTP against the real CLI.
describe('curation, lineage, citations and tombstones over MCP', () => {
  let client: Client;
  useEmbeddedServer((f) => ({ client } = f));

  async function ok(name: string, args: Record<string, unknown>): Promise<any> {
    const r = await call(client, name, args);
    assert.equal(r.isError, undefined, `${name}: ${JSON.stringify(r.content)}`);
    return r.structuredContent;
  }
  async function fails(name: string, args: Record<string, unknown>): Promise<{ code: string; rpc_code: number; message: string; details?: any }> {
    const r = await call(client, name, args);
    const err = toolError(r) as any;
    assert.ok(err, `${name} should fail: ${JSON.stringify(r.content)}`);
    return err;
  }
  const store = async (content: string, extra: Record<string, unknown> = {}) => (await ok('store', { content, ...extra })).id as string;
  const entry = async (id: string) => {
    const r = await ok('query', { id });
    return r.kind === 'entries:v1' ? r.items[0] : null;
  };
  const searchIds = async (q: string) => ((await ok('search', { query_text: q, score_threshold: 0 })).hits as Array<{ id: string }>).map((h) => h.id);

  test('tools are listed in their toolsets with "When to use" and two examples', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    const sets: Record<string, string[]> = {
      curation: ['merge_concepts', 'annotate_node', 'boost_importance', 'forget_concept', 'restore_from_hash'],
      metacognitive: ['hydrate_citation', 'get_node_lineage'],
      diagnostic: ['search_tombstones'],
    };
    for (const [set, names] of Object.entries(sets)) {
      for (const name of names) {
        const t = byName.get(name);
        assert.ok(t, `${name} listed`);
        assert.equal(t._meta?.['context-graph/toolset'], set);
        assert.match(t.description!, /When to use:/);
        assert.match(t.description!, /Example: \{/);
        assert.match(t.description!, /Advanced: \{/);
      }
    }
    assert.deepEqual(byName.get('merge_concepts')!.inputSchema.required?.sort(), ['rationale', 'source_node_ids', 'target_name']);
  });

  test('search contexts cite [node_<hex>] and hydrate_citation expands the tag (TC-META-005/006)', async () => {
    const id = await store('The citation canary lives in the lighthouse archive.', { topic: 'canary' });
    const s = await ok('search', { query_text: 'citation canary lighthouse' });
    const tag = citation(id);
    assert.ok(s.context.includes(`${tag} `), s.context);
    assert.match(tag, /^\[node_[a-f0-9]{32}\]$/);
    const h = await ok('hydrate_citation', { citation_tag: tag });
    assert.equal(h.node.id, id);
    assert.equal(h.entry.content, 'The citation canary lives in the lighthouse archive.');
    assert.equal(h.entry.topic, 'canary');
    const unknown = await fails('hydrate_citation', { citation_tag: `[node_${'ab'.repeat(16)}]` });
    assert.equal(unknown.code, 'NODE_NOT_FOUND');
    assert.equal(unknown.rpc_code, -32012);
    assert.equal((await fails('hydrate_citation', { citation_tag: '[node_xyz]' })).rpc_code, -32002);
    // Every id form names the same node.
    for (const form of [ulidToHex(id), `node_${ulidToHex(id)}`, uuidOf(id), id.toLowerCase()]) assert.equal((await entry(form))?.id, id, form);
  });

  test('annotate_node attaches tags and metadata without touching content or vectors (TC-CUR-008)', async () => {
    const id = await store('Nightly pg_dump runs at 02:00 UTC.', { tags: ['ops'] });
    const before = await entry(id);
    const a = await ok('annotate_node', {
      node_id: uuidOf(id),
      annotations: { tags: ['postgres', 'backup'], domain: 'Code', confidence: 0.6, notes: 'from the draft runbook', related_concepts: ['WAL'] },
    });
    assert.equal(a.kind, 'annotated:v1');
    assert.deepEqual(a.tags, ['ops', 'postgres', 'backup']);
    assert.deepEqual(a.annotations, { domain: 'Code', notes: 'from the draft runbook', related_concepts: ['WAL'] });
    assert.match(a.reversal_hash, /^[0-9a-f]{32}$/);
    const after = await entry(id);
    assert.equal(after.content, before.content);
    assert.deepEqual(after.tags, ['ops', 'postgres', 'backup']);
    assert.equal(after.confidence, 0.6);
    const lineage = await ok('get_node_lineage', { node_id: citation(id) });
    const last = lineage.entries.at(-1);
    assert.equal(last.event, 'modified');
    assert.deepEqual(last.changed_fields, ['confidence', 'metadata', 'tags'], 'content, topic and vectors untouched');
    assert.ok((await searchIds('pg_dump nightly')).includes(id));
    const bad = await fails('annotate_node', { node_id: id, annotations: { domain: 'Cooking' } });
    assert.equal(bad.rpc_code, -32002);
    assert.match(bad.message, /Code/);
    assert.equal((await fails('annotate_node', { node_id: id, annotations: { notes: 'x'.repeat(2_001) } })).rpc_code, -32002);
  });

  test('boost_importance moves and clamps importance; out-of-bounds delta is -32002 (TC-CUR-009/010)', async () => {
    const id = await store('The release freeze starts on Friday.');
    const b = await ok('boost_importance', { node_id: id, delta: 0.2, rationale: 'the user called the freeze critical' });
    assert.equal(b.previous_importance, 0.5);
    assert.ok(Math.abs(b.importance - 0.7) < 1e-6);
    assert.equal(b.clamped, false);
    const c = await ok('boost_importance', { node_id: id, delta: 0.5, rationale: 'it blocks every deploy this week' });
    assert.equal(c.importance, 1);
    assert.equal(c.clamped, true);
    const over = await fails('boost_importance', { node_id: id, delta: 0.6, rationale: 'way more important than anything' });
    assert.equal(over.rpc_code, -32002);
    assert.match(over.message, /0\.5/);
    assert.equal(over.details.issues[0].maximum, 0.5);
    const missing = await fails('boost_importance', { node_id: id, delta: 0.1 });
    assert.equal(missing.code, 'MISSING_RATIONALE');
    assert.equal(missing.rpc_code, -32009);
    assert.equal((await fails('boost_importance', { node_id: id, delta: 0.1, rationale: 'short' })).rpc_code, -32002, 'rationale under 10 characters');
    assert.equal((await entry(id)).importance, 1, 'failed calls changed nothing');
  });

  test('forget_concept tombstones, search_tombstones lists it, restore_from_hash brings back the exact state (TC-CUR-004/005/006, TC-DIAG-004)', async () => {
    const id = await store('The staging cluster runs on three c5.large nodes.', { topic: 'staging cluster' });
    const other = await store('Staging traffic goes through the blue load balancer.');
    await ok('relate', { triples: [{ subject: id, predicate: 'served by', object: other }] });
    const before = await entry(id);
    const f = await ok('forget_concept', { node_id: id, reason: 'obsolete', rationale: 'the staging cluster was retired' });
    assert.equal(f.soft_delete, true);
    assert.equal(f.edges_removed, 1);
    assert.equal(await entry(id), null);
    assert.ok(!(await searchIds('staging cluster c5.large')).includes(id), 'gone from search');
    const again = await fails('forget_concept', { node_id: id, reason: 'obsolete', rationale: 'the staging cluster was retired' });
    assert.equal(again.code, 'TOMBSTONE_EXISTS');
    assert.equal(again.rpc_code, -32014);

    const t = await ok('search_tombstones', { query: 'c5.large' });
    assert.deepEqual(
      t.items.map((i: any) => [i.id, i.reason, i.reversal_hash]),
      [[id, 'obsolete', f.reversal_hash]],
    );
    assert.equal((await ok('search_tombstones', { deleted_after: '2100-01-01' })).items.length, 0);
    assert.equal((await fails('search_tombstones', { limit: 101 })).rpc_code, -32002);

    const hard = await fails('forget_concept', { node_id: other, soft_delete: false, reason: 'obsolete', rationale: 'purge it for good please' });
    assert.equal(hard.rpc_code, -32002);
    assert.match(hard.message, /user_requested/);
    const reason = await fails('forget_concept', { node_id: other, reason: 'boring', rationale: 'not interesting at all' });
    assert.deepEqual(reason.details.issues[0].allowed, ['obsolete', 'duplicate', 'incorrect', 'user_requested', 'semantic_cancer']);
    assert.equal((await fails('forget_concept', { node_id: other, reason: 'obsolete' })).code, 'MISSING_RATIONALE');

    const r = await ok('restore_from_hash', { reversal_hash: f.reversal_hash });
    assert.equal(r.operation, 'forget');
    assert.deepEqual(
      r.nodes.map((n: any) => [n.id, n.change]),
      [[id, 'restore']],
    );
    assert.equal(r.edges_restored, 1);
    const after = await entry(id);
    assert.deepEqual({ ...after, updated_at: null }, { ...before, updated_at: null });
    assert.ok((await searchIds('staging cluster c5.large')).includes(id), 'found again: re-indexed');
    assert.ok(JSON.stringify(await ok('query_graph', { node: id })).includes(other), 'its edge is back');
    assert.equal((await fails('restore_from_hash', { reversal_hash: f.reversal_hash })).code, 'CONFLICT', 'a hash restores once');
    assert.equal((await fails('restore_from_hash', { reversal_hash: 'f'.repeat(32) })).rpc_code, -32012);

    const purge = await ok('forget_concept', { node_id: other, soft_delete: false, reason: 'user_requested', rationale: 'the user asked to erase it' });
    assert.equal(purge.reversal_hash, null);
    assert.equal(await entry(other), null);
    const lineage = await ok('get_node_lineage', { node_id: other });
    assert.equal(lineage.state, 'absent');
    assert.equal(lineage.entries.at(-1).event, 'purged');
  });

  test('merge_concepts merges similar nodes, re-points edges, and undo round-trips (TC-CUR-001/002)', async () => {
    const a = await store('Backups of the orders database run nightly at 02:00 UTC. They are kept for 30 days.', { tags: ['backup'] });
    const b = await store('Backups of the orders database run nightly at 02:00 UTC and go to S3.', { tags: ['s3'], importance: 0.9 });
    const c = await store('The orders database is owned by the payments team.');
    await ok('relate', { triples: [{ subject: c, predicate: 'documented by', object: a }] });
    await ok('relate', { triples: [{ subject: a, predicate: 'same as', object: b }] });
    const beforeA = await entry(a);

    const noWhy = await fails('merge_concepts', { source_node_ids: [a, b], target_name: 'Orders backups' });
    assert.equal(noWhy.code, 'MISSING_RATIONALE');
    assert.equal(noWhy.rpc_code, -32009);
    const badStrategy = await fails('merge_concepts', { source_node_ids: [a, b], target_name: 'x', merge_strategy: 'average', rationale: 'both describe backups' });
    assert.equal(badStrategy.rpc_code, -32002);
    assert.deepEqual(badStrategy.details.issues[0].allowed, ['summarize', 'keep_highest', 'concatenate']);

    const m = await ok('merge_concepts', {
      source_node_ids: [a, citation(b)],
      target_name: 'Orders backups',
      merge_strategy: 'concatenate',
      rationale: 'both describe the nightly backup',
    });
    assert.equal(m.kind, 'merged:v1');
    // The merge answers once the row and its keyword vector are written; dense vectors follow.
    assert.equal(m.keyword_searchable, true);
    assert.ok(m.priors_min_cosine >= 0.7, String(m.priors_min_cosine));
    assert.equal(m.forced, false);
    assert.equal(m.edges_repointed, 1);
    assert.equal(m.edges_dropped, 1);
    const merged = await entry(m.merged.id);
    assert.equal(merged.topic, 'Orders backups');
    assert.match(merged.content, /kept for 30 days/);
    assert.match(merged.content, /go to S3/);
    assert.deepEqual(merged.tags.sort(), ['backup', 's3']);
    assert.equal(merged.importance, 0.9);
    assert.equal(await entry(a), null);
    assert.equal(await entry(b), null);
    const hits = await searchIds('orders database backups nightly');
    assert.ok(hits.includes(m.merged.id) && !hits.includes(a) && !hits.includes(b), 'one merged node in search');
    const graph = await ok('query_graph', { node: c });
    assert.ok(JSON.stringify(graph).includes(m.merged.id), 'the edge now points at the merged node');

    const lm = await ok('get_node_lineage', { node_id: m.merged.id });
    assert.equal(lm.entries[0].event, 'merged_in');
    assert.deepEqual(lm.entries[0].merged_from, [a, b]);
    assert.equal(lm.entries[0].rationale, 'both describe the nightly backup');
    const la = await ok('get_node_lineage', { node_id: a });
    assert.deepEqual(
      la.entries.map((e: any) => e.event),
      ['created', 'merged_out'],
    );
    assert.equal(la.entries[1].merged_into, m.merged.id);
    assert.equal(la.entries[1].tx_id, m.tx_id);
    const tomb = await ok('search_tombstones', { query: 'orders database' });
    assert.deepEqual(tomb.items.map((i: any) => i.merged_into).sort(), [m.merged.id, m.merged.id]);

    const u = await ok('undo', { tx_id: m.tx_id });
    assert.ok(u.tx_id > m.tx_id);
    assert.deepEqual({ ...(await entry(a)), updated_at: null }, { ...beforeA, updated_at: null });
    assert.equal(await entry(m.merged.id), null);
    const back = await searchIds('orders database backups nightly');
    assert.ok(back.includes(a) && back.includes(b) && !back.includes(m.merged.id), 'indexes round-trip');
  });

  test('annotate and boost round-trip through restore_from_hash and undo (state before == state after)', async () => {
    const id = await store('The on-call rota changes every Monday at 09:00.', { tags: ['oncall'] });
    const before = await entry(id);
    const a = await ok('annotate_node', { node_id: id, annotations: { tags: ['rota'], confidence: 0.4, notes: 'unconfirmed' } });
    const b = await ok('boost_importance', { node_id: id, delta: -0.3, rationale: 'rarely asked about any more' });
    await ok('undo', { tx_id: b.tx_id });
    const r = await ok('restore_from_hash', { reversal_hash: a.reversal_hash });
    assert.equal(r.operation, 'annotate');
    const after = await entry(id);
    assert.deepEqual({ ...after, updated_at: null }, { ...before, updated_at: null });
    const h = await ok('hydrate_citation', { citation_tag: citation(id) });
    assert.deepEqual(h.annotations, {}, 'the annotations are gone with the restore');
    const events = (await ok('get_node_lineage', { node_id: id })).entries.map((e: any) => [e.op, e.event, e.reverted_by !== null]);
    assert.deepEqual(events, [
      ['store', 'created', false],
      ['annotate', 'modified', true],
      ['boost', 'modified', true],
      ['undo', 'modified', false],
      ['undo', 'modified', false],
    ]);
  });

  test('merge with incompatible priors: -32010, or Relational edges with force_merge (TC-CUR-003, EC-MCP-001)', async () => {
    const x = await store('Quarterly revenue grew by twelve percent in the European market.');
    const y = await store('The cat sleeps on the warm windowsill every afternoon.');
    const refused = await fails('merge_concepts', { source_node_ids: [x, y], target_name: 'Odd pair', rationale: 'testing incompatible priors' });
    assert.equal(refused.code, 'PRIORS_INCOMPATIBLE');
    assert.equal(refused.rpc_code, -32010);
    assert.ok(refused.details.priors_min_cosine < 0.7);
    assert.match(refused.message, /force_merge/);
    assert.ok(await entry(x), 'nothing changed');
    const forced = await ok('merge_concepts', { source_node_ids: [x, y], target_name: 'Odd pair', merge_strategy: 'summarize', force_merge: true, rationale: 'the user insists' });
    assert.equal(forced.forced, true);
    assert.equal(forced.relational_edges, 2);
    assert.equal(forced.summarized_by, 'extractive', 'this client offers no sampling');
    const restored = await ok('restore_from_hash', { reversal_hash: forced.reversal_hash });
    assert.equal(restored.operation, 'merge');
    assert.ok(await entry(x));
    assert.equal(await entry(forced.merged.id), null);
  });
});
