import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SparseIndex } from '../../src/index/sparse.js';
import { serializeSparse } from '../../src/index/sparse-snapshot.js';
import { mulberry32 } from '../helpers/prng.js';

const near = (a: number, b: number) => Math.abs(a - b) < 1e-9;

// Three documents over terms 1 (a), 2 (b), 3 (c): lengths 3, 2, 3, so avgdl = 8/3.
function corpus(): SparseIndex {
  const idx = new SparseIndex();
  idx.upsert(10, [1, 2], [2, 1]);
  idx.upsert(20, [2, 3], [1, 1]);
  idx.upsert(30, [3], [3]);
  return idx;
}

test('BM25 scores match hand-computed values (k1 1.2, b 0.75)', () => {
  const idx = corpus();
  assert.equal(idx.size, 3);
  // idf(a) = ln(1 + (3 − 1 + 0.5)/(1 + 0.5)) = ln(8/3); doc 10: tf 2, dl 3,
  // norm = 1 − 0.75 + 0.75·3/(8/3) = 1.09375 → 2·2.2 / (2 + 1.2·1.09375) = 4.4/3.3125.
  const a = idx.search([1], 10);
  assert.equal(a.length, 1);
  assert.equal(a[0]!.key, 10);
  assert.ok(near(a[0]!.similarity, Math.log(8 / 3) * (4.4 / 3.3125)), String(a[0]!.similarity));

  // idf(b) = idf(c) = ln(1 + 1.5/2.5) = ln 1.6.
  // doc 20 (dl 2, norm 0.8125): b and c, each 2.2/(1 + 0.975) → 2·ln1.6·2.2/1.975 ≈ 1.0471
  // doc 30 (dl 3): c tf 3 → ln1.6·6.6/4.3125 ≈ 0.7193
  // doc 10 (dl 3): b tf 1 → ln1.6·2.2/2.3125 ≈ 0.4471
  const bc = idx.search([2, 3], 10);
  assert.deepEqual(
    bc.map((h) => h.key),
    [20, 30, 10],
  );
  const l = Math.log(1.6);
  assert.ok(near(bc[0]!.similarity, (2 * l * 2.2) / 1.975));
  assert.ok(near(bc[1]!.similarity, (l * 6.6) / 4.3125));
  assert.ok(near(bc[2]!.similarity, (l * 2.2) / 2.3125));
  // A repeated query term counts once; unknown terms add nothing.
  assert.deepEqual(idx.search([2, 3, 3, 99], 10), bc);
});

test('top-k keeps the best k in order, ties broken by key', () => {
  const idx = new SparseIndex();
  for (let key = 1; key <= 50; key++) idx.upsert(key, [7], [key % 5 === 0 ? 3 : 1]);
  const top = idx.search([7], 4);
  assert.deepEqual(
    top.map((h) => h.key),
    [5, 10, 15, 20],
  );
  assert.ok(top[0]!.similarity === top[3]!.similarity);
  const next = idx.search([7], 12).slice(10);
  assert.deepEqual(
    next.map((h) => h.key),
    [1, 2],
  );
  assert.ok(next[0]!.similarity < top[3]!.similarity);
  // Against a full sort.
  const all = idx.search([7], 1000);
  assert.equal(all.length, 50);
  for (let i = 1; i < all.length; i++) {
    const [p, c] = [all[i - 1]!, all[i]!];
    assert.ok(p.similarity > c.similarity || (p.similarity === c.similarity && p.key < c.key));
  }
});

test('upsert replaces a document: old terms and length are gone', () => {
  const idx = corpus();
  idx.upsert(10, [3], [3]);
  assert.equal(idx.size, 3);
  assert.deepEqual(idx.search([1], 10), []);
  assert.equal(idx.df(1), 0);
  assert.equal(idx.df(2), 1);
  assert.equal(idx.df(3), 3);
  // Same as building the corpus afresh in that state.
  const fresh = new SparseIndex();
  fresh.upsert(20, [2, 3], [1, 1]);
  fresh.upsert(30, [3], [3]);
  fresh.upsert(10, [3], [3]);
  assert.deepEqual(idx.search([2, 3], 10), fresh.search([2, 3], 10));
});

test('remove drops postings, fixes moved positions and reuses slots', () => {
  const idx = corpus();
  assert.equal(idx.remove(10), true);
  assert.equal(idx.remove(10), false);
  assert.equal(idx.size, 2);
  assert.deepEqual(idx.search([1], 10), []);
  assert.deepEqual(
    idx.search([2], 10).map((h) => h.key),
    [20],
  );
  // Heavy churn on one term: removals from the middle of a postings list must keep it consistent.
  const many = new SparseIndex();
  for (let key = 0; key < 200; key++) many.upsert(key, [1, 2 + (key % 3)], [1 + (key % 4), 1]);
  for (let key = 0; key < 200; key += 3) many.remove(key);
  for (let key = 1; key < 200; key += 7) many.upsert(key, [1], [9]);
  const check = new SparseIndex();
  for (let key = 0; key < 200; key++) {
    if ((key - 1) % 7 === 0) check.upsert(key, [1], [9]);
    else if (key % 3 === 0) continue;
    else check.upsert(key, [1, 2 + (key % 3)], [1 + (key % 4), 1]);
  }
  assert.equal(many.size, check.size);
  for (const q of [[1], [2], [3], [4], [1, 3]]) {
    const got = many.search(q, 500);
    const want = check.search(q, 500);
    assert.deepEqual(
      got.map((h) => h.key),
      want.map((h) => h.key),
    );
    got.forEach((h, i) => assert.ok(Math.abs(h.similarity - want[i]!.similarity) < 1e-6));
  }
  for (let key = 0; key < 200; key++) many.remove(key);
  assert.equal(many.size, 0);
  assert.deepEqual(many.search([1], 10), []);
});

test('empty query, empty index, k 0 and term-less documents give no hits', () => {
  const idx = corpus();
  assert.deepEqual(idx.search([], 10), []);
  assert.deepEqual(idx.search([1], 0), []);
  assert.deepEqual(new SparseIndex().search([1], 10), []);
  idx.upsert(40, [], []);
  assert.equal(idx.size, 4);
  assert.deepEqual(
    idx
      .search([3], 10)
      .map((h) => h.key)
      .includes(40),
    false,
  );
});

test('snapshot round trip gives identical results', () => {
  const idx = corpus();
  idx.upsert(2 ** 40, [0xffffffff, 1], [1, 1]);
  const copy = SparseIndex.deserialize(idx.serialize());
  assert.equal(copy.size, idx.size);
  for (const q of [[1], [2, 3], [0xffffffff]]) assert.deepEqual(copy.search(q, 10), idx.search(q, 10));
  // From a buffer at an odd offset (a pooled read), the same.
  const bytes = idx.serialize();
  const shifted = new Uint8Array(bytes.length + 3);
  shifted.set(bytes, 3);
  const unaligned = SparseIndex.deserialize(shifted.subarray(3));
  for (const q of [[1], [2, 3], [0xffffffff]]) assert.deepEqual(unaligned.search(q, 10), idx.search(q, 10));
  assert.throws(() => SparseIndex.deserialize(new Uint8Array(20)), /not a sparse index snapshot/);
});

test('searchAmong: the same scores and order as search, restricted to the listed keys', () => {
  const next = mulberry32(99);
  const idx = new SparseIndex();
  for (let key = 1; key <= 2_000; key++) {
    const n = 1 + Math.floor(next() * 12);
    const ids = Array.from({ length: n }, () => Math.floor(next() * 300));
    idx.upsert(
      key,
      ids,
      ids.map(() => 1 + Math.floor(next() * 3)),
    );
  }
  for (let q = 0; q < 20; q++) {
    const query = Array.from({ length: 1 + (q % 5) }, () => Math.floor(next() * 300));
    const among = Array.from({ length: 150 }, () => 1 + Math.floor(next() * 2_100)); // some unknown, some repeated
    const allowed = new Set(among);
    const expected = idx.search(query, 2_000).filter((h) => allowed.has(h.key));
    assert.deepEqual(idx.searchAmong(query, 2_000, among), expected);
    assert.deepEqual(idx.searchAmong(query, 5, among), expected.slice(0, 5));
  }
  assert.deepEqual(idx.searchAmong([1], 10, []), []);
  assert.deepEqual(idx.searchAmong([100_000], 10, [1, 2, 3]), []);
});

test('a term held by every document: the top k equal the exhaustive ranking, scores and ties included', () => {
  const next = mulberry32(7);
  const idx = new SparseIndex();
  // Term 0 in every document (as "note" in a fixed template), a few mid-frequency terms, many rare ones.
  for (let key = 1; key <= 3_000; key++) {
    const ids = [0, 1 + Math.floor(next() * 6), 1 + Math.floor(next() * 6), 10 + Math.floor(next() * 400)];
    idx.upsert(
      key,
      ids,
      ids.map(() => 1 + Math.floor(next() * 2)),
    );
  }
  for (let q = 0; q < 30; q++) {
    const query = [0, 1 + (q % 6), 1 + ((q * 7) % 6), 10 + Math.floor(next() * 400)];
    const all = idx.search(query, 3_000);
    for (const k of [1, 5, 50, 200]) assert.deepEqual(idx.search(query, k), all.slice(0, k));
  }
});

test('after long churn (the packed document arrays compacted several times) it ranks as an index built from the survivors', () => {
  const rnd = mulberry32(11);
  const docs = new Map<number, { ids: number[]; tfs: number[] }>();
  const churned = new SparseIndex();
  for (let round = 0; round < 6; round++) {
    for (let i = 0; i < 1500; i++) {
      const key = Math.floor(rnd() * 2000);
      if (rnd() < 0.3) {
        churned.remove(key);
        docs.delete(key);
        continue;
      }
      const n = 1 + Math.floor(rnd() * 12);
      const doc = { ids: Array.from({ length: n }, () => Math.floor(rnd() * 60)), tfs: Array.from({ length: n }, () => 1 + Math.floor(rnd() * 3)) };
      churned.upsert(key, doc.ids, doc.tfs);
      docs.set(key, doc);
    }
  }
  const fresh = new SparseIndex();
  for (const [key, d] of docs) fresh.upsert(key, d.ids, d.tfs);
  assert.equal(churned.size, fresh.size);
  const reloaded = SparseIndex.deserialize(churned.serialize());
  const among = [...docs.keys()].filter((_, i) => i % 5 === 0);
  for (let t = 0; t < 60; t += 3) {
    const q = [t, (t * 7) % 60, 59 - t];
    const want = fresh.search(q, 40);
    for (const got of [churned.search(q, 40), reloaded.search(q, 40)]) {
      assert.deepEqual(
        got.map((h) => h.key),
        want.map((h) => h.key),
      );
      got.forEach((h, i) => assert.ok(Math.abs(h.similarity - want[i]!.similarity) < 1e-6));
    }
    assert.deepEqual(churned.searchAmong(q, 10, among), fresh.searchAmong(q, 10, among));
  }
});

/** Top 40 keys and scores, and the df of every term: what a reader of the index can tell apart. */
function observe(idx: SparseIndex, terms: number) {
  const out: unknown[] = [];
  for (let t = 0; t < terms; t += 3) out.push(idx.search([t, (t * 7) % terms, terms - 1 - t], 40).map((h) => [h.key, h.similarity.toFixed(9)]));
  out.push(Array.from({ length: terms }, (_, t) => idx.df(t)));
  return out;
}

test('a loaded snapshot takes later writes like the index it was saved from: lists grow, removals find their entries', () => {
  const rnd = mulberry32(5);
  const doc = () => {
    const n = 1 + Math.floor(rnd() * 10);
    return { ids: Array.from({ length: n }, () => Math.floor(rnd() * 80)), tfs: Array.from({ length: n }, () => 1 + Math.floor(rnd() * 3)) };
  };
  const saved = new SparseIndex();
  for (let key = 1; key <= 3_000; key++) {
    const d = doc();
    saved.upsert(key, d.ids, d.tfs);
  }
  for (let key = 1; key <= 3_000; key += 7) saved.remove(key);
  const loaded = SparseIndex.deserialize(saved.serialize());
  assert.deepEqual(observe(loaded, 80), observe(saved, 80));
  // The same writes on both: replacements and removals (each finds its postings through the
  // loaded positions), new keys into free slots and at the end, one term grown far past its room.
  for (const idx of [saved, loaded]) {
    const writes = mulberry32(6);
    for (let i = 0; i < 4_000; i++) {
      const key = 1 + Math.floor(writes() * 4_000);
      if (writes() < 0.3) idx.remove(key);
      else idx.upsert(key, [Math.floor(writes() * 80), 79], [1 + Math.floor(writes() * 3), 1]);
    }
  }
  assert.deepEqual(observe(loaded, 80), observe(saved, 80));
});

test('a snapshot not in canonical form (unsorted or repeated term ids, zero weights, a repeated key) loads as if upserted in order', () => {
  const docs = [
    { key: 7, terms: Uint32Array.from([5, 2, 5]), tfs: Float32Array.from([1, 2, 3]) },
    { key: 8, terms: Uint32Array.from([2, 9]), tfs: Float32Array.from([0, 4]) },
    { key: 7, terms: Uint32Array.from([9, 3]), tfs: Float32Array.from([1, 1]) },
    { key: 10, terms: Uint32Array.from([2, 3]), tfs: Float32Array.from([2, 2]) },
  ];
  const upserted = new SparseIndex();
  for (const d of docs) upserted.upsert(d.key, d.terms, d.tfs);
  const loaded = SparseIndex.deserialize(serializeSparse(docs));
  assert.equal(loaded.size, 3);
  assert.deepEqual(observe(loaded, 10), observe(upserted, 10));
});
