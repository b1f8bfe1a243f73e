import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { ExactVectors } from '../../src/index/exact-vectors.js';
import { mulberry32 } from '../helpers/prng.js';

const DIM = 48;

function unit(next: () => number): Float32Array {
  const v = Float32Array.from({ length: DIM }, () => next() * 2 - 1);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

test('int8 copies score within 0.01 of the exact cosine and rank like it', () => {
  const next = mulberry32(5);
  const store = new ExactVectors(DIM);
  const data = new Map<number, Float32Array>();
  for (let key = 1; key <= 500; key++) {
    const v = unit(next);
    data.set(key * 7, v);
    store.set(key * 7, v);
  }
  assert.equal(store.size, 500);
  for (let q = 0; q < 20; q++) {
    const query = unit(next);
    const among = [...data.keys()].filter((k) => k % 3 === 0);
    const truth = among.map((key) => ({ key, similarity: cos(query, data.get(key)!) })).sort((a, b) => b.similarity - a.similarity);
    const got = store.search(query, 10, [...among, 999_999, among[0]!]);
    assert.equal(got.length, 10);
    for (const h of got) assert.ok(Math.abs(h.similarity - cos(query, data.get(h.key)!)) < 0.01);
    // The true best is in the top 3 (rounding can only swap near ties).
    assert.ok(got.slice(0, 3).some((h) => h.key === truth[0]!.key));
    // Without `among`: every vector.
    assert.equal(store.search(query, 1_000).length, 500);
  }
});

test('replace, delete (slot reuse) and a zero vector', () => {
  const store = new ExactVectors(3);
  store.set(1, Float32Array.of(1, 0, 0));
  store.set(2, Float32Array.of(0, 1, 0));
  store.set(1, Float32Array.of(0, 0, 1));
  assert.deepEqual(
    store.search(Float32Array.of(0, 0, 1), 5, [1, 2]).map((h) => h.key),
    [1, 2],
  );
  assert.ok(store.delete(2));
  assert.ok(!store.delete(2));
  store.set(3, Float32Array.of(0, 0, 0));
  assert.equal(store.size, 2);
  const hits = store.search(Float32Array.of(0, 0, 1), 5);
  assert.deepEqual(
    hits.map((h) => [h.key, Math.round(h.similarity * 1000) / 1000]),
    [
      [1, 1],
      [3, 0],
    ],
  );
  assert.deepEqual(store.search(Float32Array.of(0, 0, 0), 5), []);
  assert.throws(() => store.set(4, new Float32Array(2)), /dimensions/);
});

/** `bytes` written to a file of a fresh temp dir (removed after the test), and read back. */
function readBack(t: TestContext, bytes: Uint8Array): ExactVectors {
  const dir = mkdtempSync(join(tmpdir(), 'exact-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'E.i8');
  writeFileSync(file, bytes);
  return ExactVectors.readFile(file);
}

test('a saved file keeps every live row', (t) => {
  const next = mulberry32(6);
  const store = new ExactVectors(DIM);
  for (let key = 0; key < 100; key++) store.set(key, unit(next));
  for (let key = 0; key < 100; key += 10) store.delete(key);
  const copy = readBack(t, store.serialize());
  assert.equal(copy.size, 90);
  const query = unit(next);
  assert.deepEqual(copy.search(query, 90), store.search(query, 90));
  copy.set(1_000, query);
  assert.equal(copy.search(query, 1)[0]!.key, 1_000);
  assert.throws(() => readBack(t, new Uint8Array(20)), /not an exact vectors file/);
});

test('a saved file reads back straight into the blocks, past one block; a cut file is refused', (t) => {
  const next = mulberry32(7);
  const store = new ExactVectors(DIM);
  // More rows than one block (4,096), so the last block is partly filled.
  for (let key = 0; key < 5_000; key++) store.set(key * 3, unit(next));
  for (let key = 0; key < 5_000; key += 9) store.delete(key * 3);
  const dir = mkdtempSync(join(tmpdir(), 'exact-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'E.i8');
  writeFileSync(file, store.serialize());
  const copy = ExactVectors.readFile(file);
  assert.equal(copy.size, store.size);
  const query = unit(next);
  assert.deepEqual(copy.search(query, 50), store.search(query, 50));
  const among = [3, 4_500 * 3, 4_999 * 3, 27];
  assert.deepEqual(copy.search(query, 4, among), store.search(query, 4, among));
  truncateSync(file, 16 + 10);
  assert.throws(() => ExactVectors.readFile(file), /wrong length/);
});
