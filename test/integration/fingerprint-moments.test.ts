import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { tempDir } from '../helpers/cli.js';

// The fingerprint job measures a batch on another thread against the k-NN distance moments it
// read first, then locks them to write. When another writer (a second process on one Postgres)
// advanced them meanwhile, its samples must survive: the batch is measured again on the locked
// moments, never written over them with the stale result.

let dir: Awaited<ReturnType<typeof tempDir>>;
let app: App;
const settled = async () => {
  // Stores answer before their vectors, and queue their fingerprint job once those are in.
  await app.services.pendingVectors.settled();
  for (let tries = 0; ; tries++) {
    const c = await app.queue.counts();
    if (c.waiting + c.active === 0) return;
    assert.ok(tries < 600, 'the queue never drained');
    await new Promise((r) => setTimeout(r, 20));
  }
};
const moments = async () =>
  new Map((await app.db.query<{ space: string; n: number }>(`select space, n::int as n from space_distance_stats where project_id = 'race'`)).map((r) => [r.space, Number(r.n)]));
const store = (content: string) => app.services.memory.store({ content, project_id: 'race', memory_type: 'semantic' });

before(async () => {
  dir = await tempDir('cg-fingerprint-moments-');
  app = await createApp(loadConfig({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_AUTO_EDGES: 'off' }), createLogger('warn'));
});
after(async () => {
  await app?.close();
  await dir?.remove();
});

test('moments another writer advances while a batch is measured are kept, and the batch adds its own sample on top', async () => {
  for (const text of ['The boiler is serviced in May.', 'The chiller is flushed in June.', 'The roof is inspected in April.']) await store(text);
  await settled();
  const before = await moments();
  assert.ok(
    [...before.values()].some((n) => n > 0),
    'earlier memories gave the spaces samples',
  );

  // While the next batch's arithmetic runs, "another process" adds 10 samples to every space.
  const math = app.embedder.fingerprintMath.bind(app.embedder);
  app.embedder.fingerprintMath = async (input) => {
    const out = await math(input);
    await app.db.query(`update space_distance_stats set n = n + 10, mean = mean + 0.01 where project_id = 'race'`);
    return out;
  };
  try {
    await store('The generator is load-tested in March.');
    await settled();
  } finally {
    app.embedder.fingerprintMath = math;
  }
  const now = await moments();
  for (const [space, n] of before) if (n > 0) assert.equal(now.get(space), n + 10 + 1, `${space}: the other writer's 10 samples and this memory's one`);
  const [row] = await app.db.query<{ n: number }>(`select count(*)::int as n from fingerprints f join nodes n on n.nid = f.node_nid where n.project_id = 'race'`);
  assert.equal(row!.n, 4, 'every memory has its fingerprint');
});
