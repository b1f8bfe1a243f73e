import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keywordEmbed, unpackTerms } from '../../src/embed/keyword.js';
import { createVectorIndexes } from '../../src/index/usearch-host.js';
import type { SpaceIndexSpec, VectorIndexes } from '../../src/index/vector-index.js';
import { mulberry32 } from '../helpers/prng.js';

const DIM = 64;
const COUNT = 2000;
/** Uneven batches: the small ones are cloned to the thread, the big ones (> 100 KB) moved. */
const BATCHES = [50, 150, 300, 500, 1000];
const SPEC: SpaceIndexSpec = { space: 'E1', dim: DIM, modelId: 'test-model-v1' };

function unitVector(next: () => number): Float32Array {
  const v = new Float32Array(DIM);
  let norm = 0;
  for (let i = 0; i < DIM; i++) {
    // Box–Muller: Gaussian components give directions uniform on the sphere.
    const g = Math.sqrt(-2 * Math.log(next() || 1e-12)) * Math.cos(2 * Math.PI * next());
    v[i] = g;
    norm += g * g;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < DIM; i++) v[i]! /= norm;
  return v;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

function bruteForceTop(data: Map<number, Float32Array>, query: Float32Array, k: number): number[] {
  return [...data]
    .map(([key, v]) => ({ key, sim: dot(query, v) }))
    .sort((a, b) => b.sim - a.sim)
    .slice(0, k)
    .map((h) => h.key);
}

async function upsertAll(indexes: VectorIndexes, data: Map<number, Float32Array>): Promise<void> {
  const entries = [...data];
  let at = 0;
  for (const size of BATCHES) {
    const batch = entries.slice(at, (at += size));
    await indexes.upsert(
      'E1',
      batch.map(([k]) => k),
      batch.map(([, v]) => v),
    );
  }
  assert.equal(at, entries.length);
}

describe('vector indexes on a USearch worker thread', () => {
  const next = mulberry32(20261122);
  // Keys start at 1 and skip a few, like nids after deletes.
  const data = new Map<number, Float32Array>();
  for (let i = 0; i < COUNT; i++) data.set(1 + i * 3, unitVector(next));
  const queries = Array.from({ length: 100 }, () => unitVector(next));

  let indexes: VectorIndexes;
  let dir: string;

  before(async () => {
    indexes = createVectorIndexes();
    dir = await mkdtemp(join(tmpdir(), 'cg-vector-index-'));
    await indexes.ensure(SPEC);
    // The batches cross several capacity doublings (64, 256, 512, 1024, 2048).
    await upsertAll(indexes, data);
  });

  after(async () => {
    await indexes.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('sizes counts every upserted vector', async () => {
    assert.deepEqual(await indexes.sizes(), { E1: COUNT });
  });

  test('recall@10 against exact brute force is at least 0.95', async (t) => {
    let found = 0;
    for (const q of queries) {
      const truth = new Set(bruteForceTop(data, q, 10));
      const hits = await indexes.search('E1', q, 10);
      assert.equal(hits.length, 10);
      for (const h of hits) if (truth.has(h.key)) found++;
    }
    const recall = found / (queries.length * 10);
    assert.ok(recall >= 0.95, `recall@10 = ${recall}`);
    t.diagnostic(`recall@10 = ${recall}`);
  });

  test('similarity is cosine: a stored vector finds itself at about 1', async () => {
    const [key, vector] = [...data][7]!;
    const [top] = await indexes.search('E1', vector, 3);
    assert.equal(top!.key, key);
    // f16 storage rounds the vector, so not exactly 1.
    assert.ok(Math.abs(top!.similarity - 1) < 1e-3, `similarity ${top!.similarity}`);
  });

  test('upsert of an existing key replaces its vector', async () => {
    const key = [...data.keys()][42]!;
    const replacement = unitVector(next);
    await indexes.upsert('E1', [key], [replacement]);
    data.set(key, replacement);
    const [top] = await indexes.search('E1', replacement, 5);
    assert.equal(top!.key, key);
    assert.deepEqual(await indexes.sizes(), { E1: COUNT });
  });

  test('a key repeated within one batch keeps its last vector', async () => {
    const key = [...data.keys()][43]!;
    const first = unitVector(next);
    const last = unitVector(next);
    await indexes.upsert('E1', [key, key], [first, last]);
    data.set(key, last);
    const [top] = await indexes.search('E1', last, 1);
    assert.equal(top!.key, key);
    assert.deepEqual(await indexes.sizes(), { E1: COUNT });
  });

  test('a removed key is never returned', async () => {
    const [key, vector] = [...data][100]!;
    await indexes.remove('E1', [key]);
    data.delete(key);
    const hits = await indexes.search('E1', vector, COUNT);
    assert.ok(hits.length > 0);
    assert.ok(!hits.some((h) => h.key === key));
    assert.deepEqual(await indexes.sizes(), { E1: COUNT - 1 });
  });

  test('reads issued together each get their own answer; one that fails fails alone; a read sees the writes answered before it', async () => {
    const [key, vector] = [...data][200]!;
    // Issued in one turn: they travel to the thread in one message.
    const [wrongDim, sizes, found] = await Promise.allSettled([indexes.search('E1', new Float32Array(DIM / 2), 3), indexes.sizes(), indexes.search('E1', vector, 1)]);
    assert.ok(wrongDim.status === 'rejected' && wrongDim.reason instanceof Error);
    assert.deepEqual(sizes, { status: 'fulfilled', value: { E1: data.size } });
    assert.equal(found.status === 'fulfilled' && found.value[0]?.key, key);
    // A read issued before a write in the same turn does not see it; one issued once the write answered does.
    const before = indexes.search('E1', vector, 1);
    const removed = indexes.remove('E1', [key]);
    assert.equal((await before)[0]?.key, key);
    await removed;
    assert.notEqual((await indexes.search('E1', vector, 1))[0]?.key, key);
    await indexes.upsert('E1', [key], [vector]);
  });

  test('a read made while a long batch runs answers before the batch ends; writes still apply in call order', async () => {
    const own = createVectorIndexes();
    try {
      await own.ensure({ space: 'E2', dim: DIM, modelId: 'm' });
      const first = unitVector(next);
      await own.upsert('E2', [1], [first]);
      // Thousands of HNSW adds: many slices of the index thread's time.
      const many = Array.from({ length: 20_000 }, () => unitVector(next));
      const keys = many.map((_, i) => i + 2);
      const moved = unitVector(next);
      const answered: string[] = [];
      // Key 1 moves in the big batch, and a removal asked right after it takes key 2 out again.
      const big = own.upsert('E2', [...keys, 1], [...many, moved]).then(() => answered.push('batch'));
      const removal = own.remove('E2', [2]).then(() => answered.push('removal'));
      const read = own.search('E2', first, 1).then((hits) => (answered.push('read'), hits));
      const sized = own.sizes().then((sizes) => (answered.push('sizes'), sizes));
      const [hits, sizes] = await Promise.all([read, sized, big, removal]);
      // Each write is answered after the reads made behind it, and in the order the writes were asked.
      assert.deepEqual(answered, ['read', 'sizes', 'batch', 'removal']);
      // The read ran mid-batch: it saw part of it at most, and key 1 where it was before the batch.
      assert.ok(sizes.E2! >= 1 && sizes.E2! < keys.length + 1, `size mid-batch: ${sizes.E2}`);
      assert.equal(hits[0]?.key, 1);
      // Once answered, both writes show, in call order: key 1 at its new vector, key 2 gone.
      assert.deepEqual(await own.sizes(), { E2: keys.length });
      assert.equal((await own.search('E2', moved, 1))[0]?.key, 1);
      assert.ok(!(await own.search('E2', many[0]!, 5)).some((h) => h.key === 2));
    } finally {
      await own.close();
    }
  });

  test('k is capped at the index size', async () => {
    const small = createVectorIndexes();
    try {
      await small.ensure({ space: 'E2', dim: DIM, modelId: 'm' });
      await small.upsert('E2', [5, 6, 7], [unitVector(next), unitVector(next), unitVector(next)]);
      const hits = await small.search('E2', unitVector(next), 50);
      assert.deepEqual(hits.map((h) => h.key).sort(), [5, 6, 7]);
    } finally {
      await small.close();
    }
  });

  test('a batch applies several spaces in one call: removals first, then each space its own rows', async () => {
    const small = createVectorIndexes();
    try {
      await small.ensure({ space: 'E2', dim: DIM, modelId: 'm' });
      await small.ensure({ space: 'E13', dim: 0, modelId: 'kw' });
      const [a, b, c] = [unitVector(next), unitVector(next), unitVector(next)];
      await small.upsert('E2', [1, 2], [a, b]);
      await small.applyBatch({
        // Key 2 leaves E2 and key 3 comes in; E13 gets its sparse rows from the same buffer.
        removals: [{ space: 'E2', keys: [2] }],
        upserts: [
          { space: 'E2', keys: [3], vectors: [c] },
          { space: 'E13', keys: [1, 3], vectors: [keywordEmbed('canary rollback friday'), keywordEmbed('billing outage')] },
        ],
      });
      assert.deepEqual(await small.sizes(), { E2: 2, E13: 2 });
      assert.deepEqual((await small.search('E2', b, 5)).map((h) => h.key).sort(), [1, 3]);
      assert.equal((await small.search('E2', c, 1))[0]!.key, 3);
      assert.deepEqual(
        (await small.search('E13', keywordEmbed('outage'), 5)).map((h) => h.key),
        [3],
      );
      // Term statistics sent with the reads of the same turn answer as they do alone.
      const ids = [...unpackTerms(keywordEmbed('billing outage friday nowhere')).ids];
      const [alone, withReads, hits] = await Promise.all([
        small.termIdf('E13', ids),
        small.termIdf('E13', ids, { withReads: true }),
        small.search('E13', keywordEmbed('billing'), 5),
      ]);
      assert.deepEqual(withReads, alone);
      assert.equal(alone.length, ids.length);
      assert.ok(alone.some((idf) => idf > 0));
      assert.deepEqual(
        hits.map((h) => h.key),
        [3],
      );
    } finally {
      await small.close();
    }
  });

  test('search on an empty or unknown space returns []', async () => {
    await indexes.ensure({ space: 'E3', dim: 8, modelId: 'empty' });
    assert.deepEqual(await indexes.search('E3', new Float32Array(8).fill(0.5), 10), []);
    assert.deepEqual(await indexes.search('E9', new Float32Array(8).fill(0.5), 10), []);
  });

  test('among: exactly the listed keys, ranked by cosine (int8 copies, within 0.01)', async () => {
    const keys = [...data.keys()].filter((_, i) => i % 97 === 0);
    for (const q of queries.slice(0, 10)) {
      const subset = new Map(keys.map((k) => [k, data.get(k)!]));
      const truth = bruteForceTop(subset, q, 5);
      const hits = await indexes.search('E1', q, 5, { among: [...keys, 123_456_789] });
      assert.equal(hits.length, 5);
      assert.ok(hits.every((h) => subset.has(h.key)));
      assert.equal(hits[0]!.key, truth[0]);
      for (const h of hits) assert.ok(Math.abs(h.similarity - dot(q, data.get(h.key)!)) < 0.01);
    }
    assert.deepEqual(await indexes.search('E1', queries[0]!, 5, { among: [] }), []);
  });

  test('k at least the index size scans every vector: nothing is missed', async () => {
    const q = queries[1]!;
    const hits = await indexes.search('E1', q, COUNT * 2);
    assert.equal(hits.length, data.size);
    assert.equal(hits[0]!.key, bruteForceTop(data, q, 1)[0]);
  });

  test('save then load into fresh indexes gives the same search results', async () => {
    await indexes.saveSnapshot(dir, 1234);
    const fresh = createVectorIndexes();
    try {
      // Reads made while the load runs wait for it: they would otherwise find no index at all.
      const loading = fresh.loadSnapshot(dir, [SPEC]);
      const [early, earlySizes] = await Promise.all([fresh.search('E1', queries[0]!, 10), fresh.sizes()]);
      assert.deepEqual(earlySizes, { E1: COUNT - 1 });
      assert.deepEqual(early, await indexes.search('E1', queries[0]!, 10));
      const feedSeq = await loading;
      assert.equal(feedSeq, 1234);
      assert.deepEqual(await fresh.sizes(), { E1: COUNT - 1 });
      for (const q of queries.slice(0, 20)) {
        assert.deepEqual(await fresh.search('E1', q, 10), await indexes.search('E1', q, 10));
      }
      // The exact-scoring copies came back too.
      const among = [...data.keys()].slice(0, 50);
      assert.deepEqual(await fresh.search('E1', queries[2]!, 5, { among }), await indexes.search('E1', queries[2]!, 5, { among }));
      // A loaded index keeps growing.
      await fresh.upsert('E1', [999_999], [queries[0]!]);
      assert.equal((await fresh.search('E1', queries[0]!, 1))[0]!.key, 999_999);
    } finally {
      await fresh.close();
    }
  });

  test('load with a different modelId returns 0 and leaves the index empty', async () => {
    await indexes.saveSnapshot(dir, 1234);
    const fresh = createVectorIndexes();
    try {
      const feedSeq = await fresh.loadSnapshot(dir, [{ ...SPEC, modelId: 'test-model-v2' }]);
      assert.equal(feedSeq, 0);
      assert.equal((await fresh.sizes()).E1 ?? 0, 0);
      assert.deepEqual(await fresh.search('E1', queries[0]!, 10), []);
    } finally {
      await fresh.close();
    }
  });

  test('load from a directory with no snapshot returns 0', async () => {
    const fresh = createVectorIndexes();
    try {
      assert.equal(await fresh.loadSnapshot(join(dir, 'missing'), [SPEC]), 0);
    } finally {
      await fresh.close();
    }
  });

  test('ensure with a new modelId starts the space over', async () => {
    const own = createVectorIndexes();
    try {
      await own.ensure({ space: 'E4', dim: 4, modelId: 'a' });
      await own.upsert('E4', [1], [new Float32Array([1, 0, 0, 0])]);
      await own.ensure({ space: 'E4', dim: 4, modelId: 'a' });
      assert.deepEqual(await own.sizes(), { E4: 1 });
      await own.ensure({ space: 'E4', dim: 4, modelId: 'b' });
      assert.deepEqual(await own.sizes(), { E4: 0 });
    } finally {
      await own.close();
    }
  });
});

describe('sparse spaces and snapshot formats', () => {
  const texts = ['deploy the canary first', 'rollback runbook for payments', 'canary rollback thresholds', 'lunch order for friday'];
  const E13 = { space: 'E13', dim: 0, modelId: 'bm25-terms-v1' } as const;
  const E1 = { space: 'E1', dim: 4, modelId: 'tiny' } as const;
  let dir: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cg-vector-index-formats-'));
  });

  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('a sparse space takes its kind from the space registry; among restricts BM25', async () => {
    const idx = createVectorIndexes();
    try {
      await idx.ensure(E13);
      await idx.upsert(
        'E13',
        [1, 2, 3, 4],
        texts.map((t) => keywordEmbed(t)),
      );
      const q = keywordEmbed('canary rollback');
      assert.deepEqual(
        (await idx.search('E13', q, 10)).map((h) => h.key),
        [3, 1, 2],
      );
      assert.deepEqual(
        (await idx.search('E13', q, 10, { among: [1, 2, 4] })).map((h) => h.key),
        [1, 2],
      );
      await assert.rejects(idx.ensure({ space: 'E13', dim: 8, modelId: 'x' }), /sparse space E13 .* dim is 0/);
    } finally {
      await idx.close();
    }
  });

  test('a format-1 snapshot still loads its sparse spaces; its dense ones are rebuilt from the feed', async () => {
    const idx = createVectorIndexes();
    try {
      await idx.ensure(E13);
      await idx.ensure(E1);
      await idx.upsert(
        'E13',
        [1, 2, 3, 4],
        texts.map((t) => keywordEmbed(t)),
      );
      await idx.upsert('E1', [1, 2], [Float32Array.of(1, 0, 0, 0), Float32Array.of(0, 1, 0, 0)]);
      await idx.saveSnapshot(dir, 77);
    } finally {
      await idx.close();
    }
    const meta = JSON.parse(await readFile(join(dir, 'meta.json'), 'utf8'));
    assert.equal(meta.version, 2);
    assert.deepEqual(meta.spaces.map((s: { index: string }) => s.index).sort(), ['dense', 'sparse']);
    // What a server before format 2 wrote: no kinds, no exact-scoring vectors.
    const v1 = { ...meta, version: 1, spaces: meta.spaces.map(({ index: _index, vectorsFile: _vectors, ...rest }: Record<string, unknown>) => rest) };
    await writeFile(join(dir, 'meta.json'), JSON.stringify(v1));
    const fresh = createVectorIndexes();
    try {
      assert.equal(await fresh.loadSnapshot(dir, [E13, E1]), 0);
      assert.deepEqual(await fresh.sizes(), { E13: 4, E1: 0 });
      // A sparse-only load from the same snapshot is complete.
      assert.equal(await fresh.loadSnapshot(dir, [E13]), 77);
    } finally {
      await fresh.close();
    }
  });
});

describe('a snapshot load and the reads made meanwhile', () => {
  test('a read of a space loaded first answers before the later spaces load; a read of every space waits for all', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cg-vector-index-load-order-'));
    const first = { space: 'E3', dim: 8, modelId: 'first' } as const;
    const later = { space: 'E1', dim: 64, modelId: 'later' } as const;
    const source = createVectorIndexes();
    const fresh = createVectorIndexes();
    try {
      const next = mulberry32(5);
      await source.ensure(first);
      await source.ensure(later);
      await source.upsert(
        'E3',
        [1, 2],
        [unitVector(() => 0.3), unitVector(next)].map((v) => v.subarray(0, 8)),
      );
      // Enough rows that loading E1 takes many event-loop turns' worth of time.
      const keys = Array.from({ length: 20_000 }, (_, i) => i + 1);
      await source.upsert(
        'E1',
        keys,
        keys.map(() => unitVector(next)),
      );
      await source.saveSnapshot(dir, 42);

      const order: string[] = [];
      const loading = fresh.loadSnapshot(dir, [first, later]).then(() => order.push('load'));
      const early = fresh.search('E3', unitVector(() => 0.3).subarray(0, 8), 1).then((hits) => (order.push('E3 search'), hits));
      const earlySizes = fresh.sizes(['E3']).then((s) => (order.push('E3 sizes'), s));
      // Reads made in one turn go as one message, answered together: every space's sizes go alone.
      await new Promise((r) => setImmediate(r));
      const all = fresh.sizes().then((s) => (order.push('all sizes'), s));
      const [hits, e3, everything] = await Promise.all([early, earlySizes, all, loading]);
      assert.equal(hits[0]?.key, 1);
      assert.deepEqual(e3, { E3: 2 });
      assert.deepEqual(everything, { E3: 2, E1: 20_000 });
      assert.ok(order.indexOf('E3 search') < order.indexOf('load'), order.join(', '));
      assert.ok(order.indexOf('E3 sizes') < order.indexOf('load'), order.join(', '));
      assert.ok(order.indexOf('all sizes') > order.indexOf('E3 search'), order.join(', '));
      // A read of the later space saw it whole.
      assert.equal((await fresh.search('E1', unitVector(mulberry32(5)), 5)).length, 5);
    } finally {
      await source.close();
      await fresh.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
