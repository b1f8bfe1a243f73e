import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newId } from '../../src/ids.js';
import { IndexSync } from '../../src/index/sync.js';
import { createVectorIndexes } from '../../src/index/usearch-host.js';
import type { VectorIndexes } from '../../src/index/vector-index.js';
import { createLogger } from '../../src/log.js';
import type { Db } from '../../src/store/db.js';
import { retractEmbeddings, writeEmbeddings } from '../../src/store/embeddings-repo.js';
import { mulberry32 } from '../helpers/prng.js';
import { openPostgres } from '../../src/store/postgres.js';
import { pgliteHarness, postgresHarness, type Harness } from '../helpers/stores.js';

/**
 * The replica applies the vectors this process wrote straight from memory while they follow the
 * cursor without a gap, and reads the feed for anything else. Whatever the mix, it must end
 * where the feed ends: the last vector of every key, and no key whose vector was retracted.
 */
const logger = createLogger('silent');
const SPEC = { space: 'E1' as const, dim: 16, modelId: 'sync-test-model' };

function unit(seed: number): Float32Array {
  const next = mulberry32(seed);
  const v = Float32Array.from({ length: SPEC.dim }, () => next() - 0.5);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

async function nodes(db: Db, n: number): Promise<number[]> {
  const rows = await db.query<{ nid: number }>(
    `insert into nodes (id, project_id, content, content_hash)
     select u.id, 'sync', 'text ' || u.ord, md5(u.id) from unnest($1::text[]) with ordinality as u(id, ord) order by u.ord
     returning nid`,
    [Array.from({ length: n }, () => newId())],
  );
  return rows.map((r) => Number(r.nid));
}

const write = (db: Db, nids: readonly number[], seedOf: (nid: number) => number) =>
  writeEmbeddings(
    db,
    nids.map((nid) => ({ nid, space: SPEC.space, modelId: SPEC.modelId, vector: unit(seedOf(nid)) })),
  );

describe('index replica follows the feed through vectors it wrote itself', () => {
  let h: Harness;
  let indexes: VectorIndexes;
  let sync: IndexSync;

  before(async () => {
    h = await pgliteHarness();
    indexes = createVectorIndexes();
    await indexes.ensure(SPEC);
    // No catch-up poll: its feed read, whenever the timer fires, would be counted as the writes'.
    sync = new IndexSync(h.db, indexes, [SPEC], logger, 0);
    await sync.start(0);
  });

  after(async () => {
    await sync?.stop();
    await indexes?.close();
    await h?.cleanup();
  });

  /** The key whose vector is nearest to `seed`'s, and its similarity. */
  /** Counts the feed reads `fn` makes through the replica's Db. */
  async function feedReadsDuring(fn: () => Promise<void>): Promise<number> {
    const query = h.db.query.bind(h.db);
    let reads = 0;
    h.db.query = (text: string, params?: readonly unknown[]) => {
      if (text.includes('from embeddings where feed_seq >')) reads++;
      return query(text, params);
    };
    try {
      await fn();
    } finally {
      h.db.query = query;
    }
    return reads;
  }

  async function nearest(seed: number): Promise<{ key: number; similarity: number }> {
    const [hit] = await indexes.search(SPEC.space, unit(seed), 1, {});
    assert.ok(hit, 'the index is empty');
    return hit;
  }

  test('more vectors than one feed batch, rewritten and partly retracted between pulls, end as the feed says', async () => {
    const nids = await nodes(h.db, 2_600);
    // First vectors for all: more than one batch (2,000 rows) of in-memory positions in a row.
    await write(h.db, nids, (nid) => nid);
    // A retraction is a feed write this process did not prime: a gap in the in-memory run.
    const retracted = nids.slice(0, 50);
    await h.db.transaction((tx) => retractEmbeddings(tx, retracted));
    // Rewrites move keys to new positions; their old positions are still held in memory.
    const rewritten = nids.slice(100, 200);
    await write(h.db, rewritten, (nid) => nid + 10_000);
    await sync.pull();

    assert.equal((await indexes.sizes())[SPEC.space], nids.length - retracted.length);
    for (const nid of [nids[0]!, nids[49]!]) assert.notEqual((await nearest(nid)).key, nid, `retracted ${nid} is still indexed`);
    for (const nid of [nids[100]!, nids[199]!]) {
      const hit = await nearest(nid + 10_000);
      assert.equal(hit.key, nid, 'a rewritten key carries its last vector');
      assert.ok(hit.similarity > 0.999);
    }
    const plain = nids[2_500]!;
    assert.equal((await nearest(plain)).key, plain);
    assert.equal(sync.position, Number((await h.db.query<{ s: number }>('select max(feed_seq) as s from embeddings'))[0]!.s));
  });

  test("this process's own write reaches the replica from memory, without a feed read; a retraction is read from the feed", async () => {
    const [nid] = await nodes(h.db, 1);
    const reads = await feedReadsDuring(async () => {
      // A seed no earlier key was written with (their vectors are unit(nid) or unit(nid + 10,000)).
      const seq = await write(h.db, [nid!], () => 987_654);
      await sync.reach(seq);
      // A rewrite of the same key (a re-embed) takes one position too, so no gap sends the replica to the feed.
      await sync.reach(await write(h.db, [nid!], () => 987_655));
    });
    assert.equal((await nearest(987_655)).key, nid);
    assert.equal(reads, 0, 'the own writes cost no feed read');
    const before = (await indexes.sizes())[SPEC.space]!;
    const retractionReads = await feedReadsDuring(async () => {
      await h.db.transaction((tx) => retractEmbeddings(tx, [nid!]));
      for (let i = 0; i < 200 && (await indexes.sizes())[SPEC.space] !== before - 1; i++) await new Promise((r) => setTimeout(r, 10));
    });
    assert.equal((await indexes.sizes())[SPEC.space], before - 1, 'the retraction reached the replica through its notification');
    assert.ok(retractionReads >= 1);
  });
});

describe('a replica started while its snapshot loads', () => {
  test('pulls and reaches wait for the snapshot position, then apply only what follows it', async () => {
    const h = await pgliteHarness();
    const indexes = createVectorIndexes();
    const sync = new IndexSync(h.db, indexes, [SPEC], logger);
    try {
      await indexes.ensure(SPEC);
      const nids = await nodes(h.db, 20);
      // The first ten stand for what the snapshot holds (their position), the rest for the tail after it.
      const snapshotAt = await write(h.db, nids.slice(0, 10), (nid) => nid);
      const tailAt = await write(h.db, nids.slice(10), (nid) => nid);
      let position!: (seq: number) => void;
      const started = sync.startWhen(new Promise<number>((resolve) => (position = resolve)));
      assert.equal(sync.loading, true);
      const order: string[] = [];
      const pulled = sync.pull().then(() => order.push('pull'));
      const reached = sync.reach(tailAt).then(() => order.push('reach'));
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(order, [], 'nothing is applied before the snapshot position is known');
      assert.equal((await indexes.sizes())[SPEC.space], 0);
      position(snapshotAt);
      await Promise.all([started, pulled, reached]);
      assert.equal(sync.loading, false);
      assert.equal(sync.position, tailAt);
      // Only the tail was read from the feed: the snapshot's ten are the snapshot's to hold.
      assert.equal((await indexes.sizes())[SPEC.space], 10);
      const [hit] = await indexes.search(SPEC.space, unit(nids[15]!), 1, {});
      assert.equal(hit?.key, nids[15]);
    } finally {
      await sync.stop();
      await indexes.close();
      await h.cleanup();
    }
  });
});

describe("replicas of two processes on one Postgres each apply the other one's writes", { skip: process.env.DATABASE_URL ? false : 'DATABASE_URL not set' }, () => {
  test("a write announced with the writer's own origin is read from the feed by the other replica", async () => {
    const h = await postgresHarness();
    const schema = (await h.db.query<{ s: string }>('select current_schema() as s'))[0]!.s;
    const other = await openPostgres(process.env.DATABASE_URL!, { schema });
    const [a, b] = [createVectorIndexes(), createVectorIndexes()];
    const syncs: IndexSync[] = [];
    try {
      for (const [db, ix] of [
        [h.db, a],
        [other, b],
      ] as const) {
        await ix.ensure(SPEC);
        const sync = new IndexSync(db, ix, [SPEC], logger);
        await sync.start(0);
        syncs.push(sync);
      }
      const nids = await nodes(other, 3);
      const seq = await write(other, nids, (nid) => nid + 500);
      await syncs[1]!.reach(seq);
      assert.equal((await b.sizes())[SPEC.space], 3, "the writer's replica has them");
      for (let i = 0; i < 300 && (await a.sizes())[SPEC.space] !== 3; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal((await a.sizes())[SPEC.space], 3, 'the other replica read them from the feed on the notification');
      assert.equal(syncs[0]!.position, seq);
    } finally {
      for (const sync of syncs) await sync.stop();
      await a.close();
      await b.close();
      await other.close();
      await h.cleanup();
    }
  });
});
