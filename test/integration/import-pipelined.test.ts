import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { spaceById } from '../../src/embed/spaces/registry.js';
import { claimOwedEmbeddings } from '../../src/store/outbox-repo.js';
import { fromBytes } from '../../src/store/vector-bytes.js';
import { createLogger } from '../../src/log.js';
import { tempDir } from '../helpers/cli.js';

// The pipelined bulk path of `context-graph import` (embedded): batches are written, their embed
// jobs queued without per-batch index pulls, and fingerprints computed once at the end. What a
// user relies on: every memory ends up searchable with a vector in every space the embedder
// produces, every memory gets a fingerprint, and running the import again writes nothing.

const N = 120;
/** A made-up word only memory i holds (letters only, so every tokenizer keeps it whole). */
const word = (i: number) => `zorbl${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`;
const records = Array.from({ length: N }, (_, i) => ({
  type: 'memory',
  content: `Pipeline note ${i}: the ${['billing', 'search', 'backup'][i % 3]} service rotates ${['keys', 'logs', 'tokens', 'caches'][i % 4]} ${word(i)}`,
  topic: `topic ${i % 5}`,
  tags: ['bulk'],
}));

describe('pipelined import (embedded)', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let app: App;
  before(async () => {
    dir = await tempDir('cg-import-pipelined-');
    app = await createApp(loadConfig({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_AUTO_EDGES: 'off' }), createLogger('warn'));
  });
  after(async () => {
    await app?.close();
    await dir?.remove();
  });

  const count = async (sql: string) => (await app.db.query<{ n: number }>(sql))[0]!.n;

  test('every imported memory is searchable in every space and fingerprinted; a second run skips them all', async () => {
    let inserted = 0;
    for (let i = 0; i < N; i += 50) inserted += (await app.services.bulkImport.importBatch(records.slice(i, i + 50), { pipelined: true, actor: 'test' })).inserted;
    assert.equal(inserted, N);
    // Searchable: nothing owed in the outbox, then the replica has caught up with the feed.
    for (let tries = 0; (await count('select count(*)::int as n from embedding_outbox')) > 0; tries++) {
      assert.ok(tries < 600, 'embedding never finished');
      await new Promise((r) => setTimeout(r, 50));
    }
    await app.indexSync.pull();
    const spaces = app.embedder.encoders().map((e) => e.space);
    assert.ok(spaces.length >= 2);
    const sizes = await app.indexes.sizes();
    for (const space of spaces) assert.equal(sizes[space], N, `index of ${space}`);
    assert.equal(await count(`select count(*)::int as n from embeddings where vector is not null`), N * spaces.length);
    // Each vector written once: a second write of a (node, space) would take more feed positions.
    assert.equal(await count(`select last_value::int as n from embedding_feed_seq`), N * spaces.length, 'no memory embedded twice');
    // No fingerprint yet: the import deferred them; then one job per project computes them all.
    assert.equal(await count('select count(*)::int as n from fingerprints'), 0);
    await app.services.bulkImport.scheduleDeferredFingerprints();
    assert.equal(await count('select count(*)::int as n from fingerprints'), N);
    const stages = await app.db.query<{ stage: string; n: number }>(`select stage, count(*)::int as n from fingerprints group by stage order by stage`);
    // The lifecycle stage counts the memories up to each one, not the project's size when the job ran.
    assert.deepEqual(
      stages.map((s) => [s.stage, s.n]),
      [
        ['growth', N - 49],
        ['infancy', 49],
      ],
    );
    const [fp] = await app.db.query<{ spaces: string[] }>(`select spaces from fingerprints order by node_nid desc limit 1`);
    assert.deepEqual([...fp!.spaces].sort(), [...spaces].sort());

    // Each memory is found in every space's index by its own stored vector (the replica holds
    // exactly what was written, whichever way it got there).
    for (const i of [0, 61, N - 1]) {
      const [node] = await app.db.query<{ nid: number }>(`select nid from nodes where content like $1`, [`%${word(i)}`]);
      const stored = await app.db.query<{ space: string; dim: number; vector: Uint8Array }>(`select space, dim, vector from embeddings where node_nid = $1`, [node!.nid]);
      assert.equal(stored.length, spaces.length);
      for (const { space, dim, vector } of stored) {
        const hits = await app.indexes.search(space as never, fromBytes(vector, dim), N);
        assert.ok(
          hits.some((h) => h.key === Number(node!.nid)),
          `memory ${i} not found in ${space}`,
        );
      }
    }

    // Resume: the same records again are all skipped, nothing written, nothing queued.
    const again = await app.services.bulkImport.importBatch(records, { pipelined: true, actor: 'test' });
    assert.deepEqual([again.inserted, again.skipped, again.jobIds.length], [0, N, 0]);
    assert.equal(await count('select count(*)::int as n from nodes'), N);
  });

  test('fingerprints computed under another set of spaces are recomputed at the next start; nothing stays owed', async () => {
    const key = (await app.db.query<{ model_key: string }>(`select model_key from fingerprints limit 1`))[0]!.model_key;
    // What a change of the enabled spaces leaves behind: every fingerprint under a key no longer current.
    await app.db.query(`update fingerprints set model_key = 'E1=an-older-model'`);
    await app.close();
    app = await createApp(loadConfig({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_AUTO_EDGES: 'off' }), createLogger('warn'));
    for (let tries = 0; ; tries++) {
      const c = await app.queue.counts();
      if (c.waiting + c.active === 0) break;
      assert.ok(tries < 600, 'fingerprint backlog never drained');
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(await count(`select count(*)::int as n from fingerprints where model_key = '${key}'`), N);
    assert.equal(await count('select count(*)::int as n from fingerprint_outbox'), 0);
  });
});

// `searchFirst` (what `context-graph import` asks for in embedded mode): a first pass embeds the
// spaces default search reads, a second the rest once the import asks for it.
describe('pipelined import in two passes (searchFirst)', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let app: App;
  before(async () => {
    dir = await tempDir('cg-import-two-passes-');
    app = await createApp(loadConfig({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_AUTO_EDGES: 'off' }), createLogger('warn'));
  });
  after(async () => {
    await app?.close();
    await dir?.remove();
  });

  const count = async (sql: string, params: unknown[] = []) => (await app.db.query<{ n: number }>(sql, params))[0]!.n;

  test('default search finds every memory after the first pass; every space holds them after the second, each vector written once', async () => {
    for (let i = 0; i < N; i += 50) await app.services.bulkImport.importBatch(records.slice(i, i + 50), { pipelined: true, searchFirst: true, actor: 'test' });
    await app.services.bulkImport.searchable();
    await app.indexSync.pull();
    const spaces = app.embedder.encoders().map((e) => e.space);
    const first = spaces.filter((s) => spaceById(s).weight > 0);
    const rest = spaces.filter((s) => spaceById(s).weight <= 0);
    assert.ok(first.includes('E1') && rest.length > 0, `spaces ${spaces.join(',')}`);
    let sizes = await app.indexes.sizes();
    for (const space of first) assert.equal(sizes[space], N, `index of ${space} after the first pass`);
    for (const space of rest) assert.equal(sizes[space], 0, `index of ${space} waits for the second pass`);
    // Still owed (the outbox keeps them until every space is written), but found by default search.
    assert.equal(await count('select count(*)::int as n from embedding_outbox'), N);
    for (const i of [0, 61, N - 1]) {
      const hits = await app.services.search.hybrid({ text: `rotates ${word(i)}`, limit: 3 });
      assert.equal(hits.hits[0]?.node.content, records[i]!.content, `memory ${i} by default search`);
    }
    // Leased ahead: a drain that takes every row whose lease is over (here: any lease) takes none.
    assert.deepEqual(await claimOwedEmbeddings(app.db, { graceMs: 0, leaseMs: 0, limit: 1_000, afterNid: 0 }), []);
    // No fingerprint owed yet: they compare every space.
    assert.equal(await count('select count(*)::int as n from fingerprint_outbox'), 0);

    await app.services.bulkImport.scheduleDeferredFingerprints();
    await app.indexSync.pull();
    sizes = await app.indexes.sizes();
    for (const space of spaces) assert.equal(sizes[space], N, `index of ${space} after the second pass`);
    assert.equal(await count('select count(*)::int as n from embedding_outbox'), 0);
    assert.equal(await count(`select last_value::int as n from embedding_feed_seq`), N * spaces.length, 'no vector written twice');
    assert.equal(await count('select count(*)::int as n from fingerprints'), N);
  });

  test('a memory changed between the passes stays owed after the second, so the outbox embeds it again in every space', async () => {
    const more = records.map((r, i) => ({ ...r, content: `${r.content} again ${word(i + 200)}` })).slice(0, 10);
    await app.services.bulkImport.importBatch(more, { pipelined: true, searchFirst: true, actor: 'test' });
    await app.services.bulkImport.searchable();
    // A change whose own embed job is lost: the node's new version is owed, and its first-pass vectors are of the old text.
    const [changed] = await app.db.query<{ nid: number }>(`update nodes set content = content || ' edited', version = version + 1 where content like $1 returning nid`, [
      `%${word(203)}`,
    ]);
    await app.services.bulkImport.embedRest();
    const owed = await app.db.query<{ nid: number }>('select nid from embedding_outbox');
    assert.deepEqual(
      owed.map((o) => Number(o.nid)),
      [Number(changed!.nid)],
    );
  });
});
