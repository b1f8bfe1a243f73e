import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { tempDir } from '../helpers/cli.js';

// Issue 15: embedded `store` answers before its vectors (services/pending-vectors.ts). What must
// still hold: a read issued after the answers finds every stored memory by every signal (here
// after a burst of concurrent stores, which share embed batches), the near-duplicate check sees a
// memory stored just before whose vectors are not indexed yet, and every memory gets its
// fingerprint once the burst is over.
describe('store: read-your-writes without waiting for vectors (embedded)', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let app: App;
  before(async () => {
    dir = await tempDir('cg-ryw-');
    app = await createApp(loadConfig({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_AUTO_EDGES: 'off' }), createLogger('warn'));
  });
  after(async () => {
    await app.close();
    await dir.remove();
  });

  test('a burst of stores: every one found right after by lexical and E1 search; batches are shared', async () => {
    const topics = ['harbour', 'glacier', 'orchard', 'volcano', 'library', 'desert', 'lantern', 'meadow', 'canyon', 'violin', 'compass', 'bakery'];
    const stored = await Promise.all(
      topics.map((t, i) => app.services.memory.store({ content: `The ${t} report number ${i} mentions the ${t} inspection.`, project_id: 'ryw', memory_type: 'semantic' })),
    );
    for (const s of stored) {
      assert.equal(s.searchable, true);
      assert.ok(s.embeddingJobId, 'every store names the embed job that carries it');
    }
    assert.ok(new Set(stored.map((s) => s.embeddingJobId)).size < stored.length, 'concurrent stores share embed batches');
    // What invoke() does before every call but store.
    await app.services.pendingVectors!.settled();
    for (const [i, t] of topics.entries()) {
      const { hits } = await app.services.search.hybrid({ text: `${t} inspection report`, projectId: 'ryw', limit: 3 });
      const hit = hits.find((h) => h.node.id === stored[i]!.node.id);
      assert.ok(hit, `${t} found`);
      assert.ok(hit.signals.lexical && hit.signals.E1, `${t} found by lexical and E1: ${JSON.stringify(hit.signals)}`);
    }
  });

  test('a near duplicate of a memory whose vectors are still pending is reported', async () => {
    const first = await app.services.memory.store({ content: 'The night ferry to the island leaves the harbour at eleven.', project_id: 'ryw-dup', memory_type: 'semantic' });
    const second = await app.services.memory.store({ content: 'The night ferry to the island leaves the harbour at eleven pm.', project_id: 'ryw-dup', memory_type: 'semantic' });
    assert.ok(
      second.possibleDuplicates.some((d) => d.id === first.node.id && d.match === 'near'),
      JSON.stringify(second.possibleDuplicates),
    );
  });

  test('every stored memory gets its fingerprint once the burst is over', async () => {
    await app.services.pendingVectors!.settled();
    const deadline = Date.now() + 20_000;
    for (;;) {
      const [row] = await app.db.query<{ n: number }>(
        `select count(*)::int as n from nodes n where n.project_id like 'ryw%' and not exists (select 1 from fingerprints f where f.node_nid = n.nid)`,
      );
      if (row!.n === 0) break;
      assert.ok(Date.now() < deadline, `${row!.n} memories still lack a fingerprint`);
      await new Promise((r) => setTimeout(r, 100));
    }
  });
});
