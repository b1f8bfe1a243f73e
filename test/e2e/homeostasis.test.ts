import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, toolError, useEmbeddedServer } from '../helpers/cli.js';

// homeostatic_status, quarantine_node and the SEMANTIC_CANCER_DETECTED guard on boost_importance
// (seed 001 §3.5 REQ-MCP-P2-001, §5 −32015), with a planted dominating memory.
describe('homeostasis: importance balance, semantic cancer and quarantine over MCP', () => {
  let client: Client;
  useEmbeddedServer((f) => ({ client } = f));

  async function ok(name: string, args: Record<string, unknown>): Promise<any> {
    const r = await call(client, name, args);
    assert.equal(r.isError, undefined, `${name}: ${JSON.stringify(r.content)}`);
    return r.structuredContent;
  }
  const store = async (content: string) => (await ok('store', { content, project_id: 'homeo' })).id as string;
  const searchIds = async (q: string) => ((await ok('search', { query_text: q, project_id: 'homeo', limit: 5 })).hits as Array<{ id: string }>).map((h) => h.id);

  const TOPICS = [
    'The giraffe at the city zoo eats acacia leaves every morning.',
    'The volcano on the island erupted after centuries of silence.',
    'Her saxophone solo closed the jazz festival on Sunday.',
    'The glacier retreated two kilometres over the last decade.',
    'Our sourdough starter needs feeding with rye flour twice a day.',
    'The chess tournament ended in a tense rook endgame.',
    'The lighthouse keeper logged every passing ship by lantern light.',
    'Monarch butterflies migrate thousands of miles to Mexico.',
    'The violin maker varnished the spruce top with amber resin.',
    'Astronauts grew lettuce aboard the orbiting space station.',
    'The marathon route crosses four bridges along the river.',
    'The blacksmith forged horseshoes from recycled iron bars.',
    'Penguins huddle together to survive the antarctic winter.',
    'The origami crane was folded from a single square of paper.',
    'A thunderstorm knocked out power across the valley overnight.',
    'The submarine descended to the ocean trench at dawn.',
    'The pottery kiln reached twelve hundred degrees during firing.',
    'The falcon dived at over three hundred kilometres per hour.',
    'The orchard harvested a record crop of crisp apples.',
    'The telescope captured a faint spiral galaxy near Andromeda.',
  ];
  // The planted memory: the content words of every other memory, so it answers queries about all of them.
  const HUB = TOPICS.map((t) =>
    t
      .replace(/[.]/g, '')
      .split(' ')
      .filter((w) => w.length > 3)
      .join(' '),
  ).join('; ');

  test('a planted memory that dominates other queries is semantic cancer once its importance grows; boosting it is −32015; quarantine takes it out of search; undo brings it back', async () => {
    const ids = [];
    for (const t of TOPICS) ids.push(await store(t));
    const hub = await store(HUB);
    await ok('relate', { triples: ids.slice(0, 5).map((id) => ({ subject: hub, predicate: 'mentions', object: id })) });

    const before = await ok('homeostatic_status', { project_id: 'homeo' });
    assert.equal(before.kind, 'homeostatic:v1');
    assert.equal(before.memories, 21);
    assert.equal(before.importance.mean, 0.5);
    assert.equal(before.importance.scaling.state, 'balanced');
    assert.equal(before.importance.scaling.factor, 1);
    assert.equal(before.importance.histogram[5].count, 21, 'every memory at the default 0.5');
    assert.equal(before.probes, 21);
    const dominant = before.semantic_cancer.find((c: { id: string }) => c.id === hub);
    assert.ok(dominant, JSON.stringify(before.semantic_cancer));
    assert.equal(before.semantic_cancer[0].id, hub, 'the planted memory dominates most');
    assert.ok(dominant.dominance.share >= 0.75, JSON.stringify(dominant.dominance));
    assert.ok(dominant.dominance.share >= 2 * before.baseline_share);
    assert.ok(dominant.dominance.share >= 0.3, JSON.stringify(dominant.dominance));
    assert.equal(dominant.degree, 5);
    assert.deepEqual(dominant.criteria, { dominating: true, hub: true, growing: false });
    assert.equal(dominant.cancer, false, 'its importance has not grown yet');
    assert.ok(!before.semantic_cancer.some((c: { cancer: boolean }) => c.cancer), 'no cancer before any importance grew');

    // Importance raised outside boost_importance: now every criterion holds.
    await ok('update', { id: hub, importance: 0.9 });
    const grown = await ok('homeostatic_status', { project_id: 'homeo' });
    const cancer = grown.semantic_cancer[0];
    assert.equal(cancer.id, hub);
    assert.equal(cancer.cancer, true);
    assert.deepEqual(
      grown.semantic_cancer.filter((c: { cancer: boolean }) => c.cancer).map((c: { id: string }) => c.id),
      [hub],
      'memories that merely rank often (no edges, no growth) are not cancer',
    );
    assert.equal(cancer.importance_growth, 0.4);
    assert.equal(grown.importance.mean, Math.round(((20 * 0.5 + 0.9) / 21) * 1000) / 1000);
    assert.equal(grown.importance.scaling.factor, Math.round((0.5 / ((20 * 0.5 + 0.9) / 21)) * 1000) / 1000);
    assert.ok(grown.importance.gini > before.importance.gini);

    // boost_importance refuses to feed it, and writes nothing; an ordinary memory is boosted.
    const refused = toolError(await call(client, 'boost_importance', { node_id: hub, delta: 0.05, rationale: 'it answers everything, make it count more' }))!;
    assert.equal(refused.code, 'SEMANTIC_CANCER_DETECTED');
    assert.equal((refused as any).rpc_code, -32015);
    assert.equal(refused.details.node_id, hub);
    assert.equal((await ok('query', { id: hub })).items[0].importance, 0.9);
    await ok('boost_importance', { node_id: hub, delta: -0.1, rationale: 'lowering a dominating memory is always allowed' });
    const ordinary = await ok('boost_importance', { node_id: ids[3], delta: 0.2, rationale: 'the glacier data matters for the report' });
    assert.ok(Math.abs(ordinary.importance - 0.7) < 1e-6);

    // Quarantine: out of search, listed, undoable.
    const query = 'giraffe volcano saxophone glacier';
    assert.ok((await searchIds(query)).includes(hub));
    const q = await ok('quarantine_node', { node_id: hub, rationale: 'dominates unrelated queries (homeostatic_status)' });
    assert.equal(q.quarantined, true);
    assert.match(q.reversal_hash, /^[0-9a-f]{32}$/);
    assert.ok(!(await searchIds(query)).includes(hub), 'search leaves a quarantined memory out');
    assert.equal((await ok('query', { id: hub })).items[0].id, hub, 'still readable by id');
    const quarantined = await ok('homeostatic_status', { project_id: 'homeo' });
    assert.deepEqual(
      quarantined.quarantine.map((x: { id: string }) => x.id),
      [hub],
    );
    assert.equal(quarantined.quarantine[0].rationale, 'dominates unrelated queries (homeostatic_status)');
    assert.ok(!quarantined.semantic_cancer.some((c: { id: string }) => c.id === hub), 'quarantined, it no longer dominates');
    assert.equal(toolError(await call(client, 'quarantine_node', { node_id: hub, rationale: 'a second time on purpose' }))!.code, 'CONFLICT');
    await ok('undo', {});
    assert.ok((await searchIds(query)).includes(hub), 'undo releases it');
    assert.deepEqual((await ok('homeostatic_status', { project_id: 'homeo' })).quarantine, []);
    assert.equal(toolError(await call(client, 'quarantine_node', { node_id: hub, rationale: 'short' }))!.code, 'INVALID_PARAMS');
    assert.equal(toolError(await call(client, 'quarantine_node', { node_id: hub }))!.code, 'MISSING_RATIONALE');
  });

  test('an empty project reports an empty distribution and no dominance', async () => {
    const r = await ok('homeostatic_status', { project_id: 'nothing-stored-here' });
    assert.equal(r.memories, 0);
    assert.equal(r.importance.scaling.state, 'empty');
    assert.equal(r.importance.scaling.factor, null);
    assert.deepEqual(r.semantic_cancer, []);
  });
});
