import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { SIGNAL_WEIGHTS } from '../../src/services/search.js';
import { vectorsOf } from '../../src/store/navigation-repo.js';
import { tempDir } from '../helpers/cli.js';
import { inMemoryClient } from '../helpers/in-memory.js';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

// E6, E8 and E12 each change something a user can see: a match, a vector that follows the
// edges, a ranking (and only when weighted).
describe('spaces E6 (expansion), E8 (graph) and E12 (late interaction)', () => {
  let app: App;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let client: Client;

  before(async () => {
    dir = await tempDir();
    app = await createApp(loadConfig({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_AUTO_EDGES: 'off', CONTEXT_GRAPH_TOOLSETS: 'all' }), createLogger('warn'));
    client = await inMemoryClient(app, { name: 'spaces-new', actor: 'spaces-new' });
  });
  after(async () => {
    await client.close();
    await app.close();
    await dir.remove();
  });

  // A store answers before its vectors; these tests read the stored vectors themselves, so they wait for them.
  const store = async (content: string, project: string) => {
    const { node } = await app.services.memory.store({ content, project_id: project, memory_type: 'semantic' });
    await app.services.pendingVectors.settled();
    return node;
  };
  const search = (text: string, project: string, weights?: Record<string, number>) => app.services.search.hybrid({ text, limit: 10, projectId: project, weights });

  test('E6: a query word that only a GloVe neighbour of the memory’s word shares ranks the memory', async () => {
    const hike = await store('She went hiking in the mountains last weekend.', 'e6');
    await store('The kitchen sink was repaired on Monday.', 'e6');
    // "camping" is one of hiking's five nearest GloVe neighbours (cosine 0.75); no term is shared.
    assert.equal((await search('camping', 'e6', { lexical: 1 })).hits.length, 0, 'BM25 over E13 finds nothing');
    const e6 = await search('camping', 'e6', { E6: 1 });
    assert.equal(e6.hits[0]?.node.id, hike.id);
    assert.ok(e6.hits[0].signals.E6!.score > 0);
    // Queries are not expanded: the memory's own word still matches at full weight.
    const own = await search('hiking', 'e6', { E6: 1 });
    assert.ok(own.hits[0]!.signals.E6!.score > e6.hits[0].signals.E6!.score);
  });

  test('E8: after relate, a node’s graph vector moves toward its neighbour’s meaning, and back once the edge is removed', async () => {
    const a = await store('The billing service runs on Kubernetes in the Frankfurt region.', 'e8');
    const b = await store('Grandma bakes an apple pie with cinnamon every Sunday.', 'e8');
    const e1 = await vectorsOf(app.db, 'E1', [a.nid, b.nid]);
    const before = (await vectorsOf(app.db, 'E8', [a.nid])).get(a.nid)!;
    // No edges: its own E1 vector.
    assert.ok(Math.abs(dot(before, e1.get(a.nid)!) - 1) < 1e-5);
    const r = (await client.callTool({ name: 'relate', arguments: { triples: [{ subject: a.id, predicate: 'reminds_of', object: b.id, project_id: 'e8' }] } })) as CallToolResult;
    assert.equal(r.isError, undefined, JSON.stringify(r.content));
    let moved = before;
    for (let i = 0; i < 200 && moved === before; i++) {
      await sleep(50);
      const v = (await vectorsOf(app.db, 'E8', [a.nid])).get(a.nid)!;
      if (Math.abs(dot(v, before) - 1) > 1e-4) moved = v;
    }
    assert.notEqual(moved, before, 'the graph-embed job rewrote the E8 vector');
    assert.ok(dot(moved, e1.get(b.nid)!) > dot(before, e1.get(b.nid)!) + 0.2, 'closer to the neighbour');
    assert.ok(dot(moved, e1.get(a.nid)!) > 0.5, 'still mostly itself');
    // And search in E8 sees it: the pie question now finds the billing memory's graph position.
    await app.indexSync?.pull();
    const hits = await search('apple pie with cinnamon', 'e8', { E8: 1 });
    const billing = hits.hits.find((h) => h.node.id === a.id);
    assert.ok(billing && billing.signals.E8!.score > dot(before, e1.get(b.nid)!));

    // Removing the edge (forget_concept of the neighbour deletes the edges touching it) queues the
    // graph-embed job of the other end: with no edge left, the vector is its own E1 vector again.
    const f = (await client.callTool({
      name: 'forget_concept',
      arguments: { node_id: b.id, reason: 'obsolete', rationale: 'the pie memory no longer belongs to this project' },
    })) as CallToolResult;
    assert.equal(f.isError, undefined, JSON.stringify(f.content));
    assert.equal((f.structuredContent as { edges_removed: number }).edges_removed, 1);
    let back = moved;
    for (let i = 0; i < 200 && back === moved; i++) {
      await sleep(50);
      const v = (await vectorsOf(app.db, 'E8', [a.nid])).get(a.nid)!;
      if (Math.abs(dot(v, moved) - 1) > 1e-4) back = v;
    }
    assert.notEqual(back, moved, 'the graph-embed job rewrote the E8 vector after the edge was removed');
    assert.ok(Math.abs(dot(back, e1.get(a.nid)!) - 1) < 1e-5, 'no edge left: its own E1 vector again');
  });

  test('E12: MaxSim reranks the fused candidates only when weighted', async () => {
    const kitten = await store('Kitten heels are back in fashion this season, says the magazine.', 'e12');
    const pets = await store('Our young dog and the little cat saw the vet at the hospital on Tuesday.', 'e12');
    // Twenty memories: a fused list that long is min-max scaled (fusion.ts MIN_MAX_POPULATION), as
    // in any real store; a shorter one scales MaxSim from its "no match" floor, which neither of
    // these two (0.67, 0.59) reaches.
    for (const filler of [
      'The quarterly report is due on Friday.',
      'Traffic on the bridge was slow this morning.',
      'The library closes early on holidays.',
      'The new printer on the second floor jams on thick paper.',
      'Our team lunch moved to the Italian place downtown.',
      'The garden hose sprang a leak near the tap.',
      'Tickets for the concert sold out within an hour.',
      'The train to the airport now leaves every twenty minutes.',
      'She repainted the kitchen a pale shade of yellow.',
      'The budget meeting was postponed until next quarter.',
      'He finally fixed the squeaky door in the hallway.',
      'The museum opens a new exhibit on ancient maps.',
      'Snow is expected in the mountains over the weekend.',
      'The bakery started selling rye bread on Saturdays.',
      'Our laptop batteries barely last three hours now.',
      'The football match went into extra time.',
      'The landlord will replace the old windows in spring.',
      'A new bike lane opened along the river.',
    ])
      await store(filler, 'e12');
    const q = 'puppy kitten veterinarian clinic';
    const ids = (r: Awaited<ReturnType<typeof search>>) => r.hits.map((h) => h.node.id);
    // Weighted by default (it earned its weight on LoCoMo dev: e12-late-interaction.ts).
    assert.ok(SIGNAL_WEIGHTS.E12! > 0);
    const base = await search(q, 'e12');
    assert.ok(
      base.hits.every((h) => h.signals.E12),
      'weighted by default: every candidate gets a MaxSim score',
    );
    const zero = await search(q, 'e12', { ...SIGNAL_WEIGHTS, E12: 0 });
    const { E12: _, ...withoutE12 } = SIGNAL_WEIGHTS;
    const without = await search(q, 'e12', withoutE12);
    assert.deepEqual(ids(zero), ids(without), 'weight 0: the ranking is the one without E12');
    assert.deepEqual(
      zero.hits.map((h) => h.score),
      without.hits.map((h) => h.score),
    );
    assert.ok(!zero.hits.some((h) => h.signals.E12), 'weight 0: MaxSim is not even computed');
    assert.equal(zero.hits[0]!.node.id, kitten.id, 'without E12, lexical "kitten" wins');
    // MaxSim 0.67 (dog, cat, vet, hospital answer each query word) against 0.59 for the kitten heels.
    const heavy = await search(q, 'e12', { ...SIGNAL_WEIGHTS, E12: 20 });
    assert.ok(
      heavy.hits.every((h) => h.signals.E12),
      'every candidate gets a MaxSim score',
    );
    assert.equal(heavy.hits[0]!.node.id, pets.id, 'dog, cat, vet and hospital answer the query word by word');
    assert.ok(heavy.hits[0]!.signals.E12!.score > heavy.hits.find((h) => h.node.id === kitten.id)!.signals.E12!.score);
  });
});
