import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TRIM_HEADROOM } from '../../src/index/doc-pool.js';
import { PostingsPool } from '../../src/index/postings-pool.js';
import { mulberry32 } from '../helpers/prng.js';

function list(pool: PostingsPool, term: number): Array<[number, number]> {
  const tix = pool.tix(term);
  if (tix === undefined) return [];
  const from = pool.start[tix]!;
  return Array.from({ length: pool.n[tix]! }, (_, i) => [pool.slots[from + i]!, pool.tfs[from + i]!]);
}

test('under churn every list holds exactly its entries, emptied terms are forgotten, and the arrays stop growing', () => {
  const rnd = mulberry32(5);
  const pool = new PostingsPool();
  // The model: per term, its entries in list order.
  const model = new Map<number, Array<[number, number]>>();
  let step = 0;
  const add = () => {
    const term = Math.floor(rnd() * 300);
    const entries = model.get(term) ?? [];
    const entry: [number, number] = [step, 1 + (step++ % 5)];
    assert.equal(pool.add(term, entry[0], entry[1]), entries.length);
    model.set(term, [...entries, entry]);
  };
  const remove = () => {
    const terms = [...model.keys()];
    const term = terms[Math.floor(rnd() * terms.length)]!;
    const entries = model.get(term)!;
    const at = Math.floor(rnd() * entries.length);
    const moved = pool.removeAt(term, at);
    const last = entries.pop()!;
    if (at < entries.length) {
      assert.equal(moved, last[0]);
      entries[at] = last;
    } else assert.equal(moved, -1);
    if (entries.length === 0) model.delete(term);
  };
  for (let i = 0; i < 10_000; i++) add();
  const built = pool.slots.length;
  // As many removals as additions: the lists' total length stays put, so must the arrays.
  for (let i = 0; i < 60_000; i++) {
    remove();
    add();
  }
  for (let term = 0; term < 300; term++) {
    assert.deepEqual(list(pool, term), model.get(term) ?? []);
    if (!model.has(term)) assert.equal(pool.tix(term), undefined);
  }
  assert.ok(pool.slots.length <= built * 1.5, `${pool.slots.length} entries against ${built} after the build`);
  pool.trim();
  for (let term = 0; term < 300; term++) assert.deepEqual(list(pool, term), model.get(term) ?? []);
  const held = [...model.values()].reduce((s, e) => s + Math.max(2, Math.ceil(e.length * TRIM_HEADROOM)), 0);
  assert.equal(pool.slots.length, Math.ceil(held * TRIM_HEADROOM));
  add();
  for (let term = 0; term < 300; term++) assert.deepEqual(list(pool, term), model.get(term) ?? []);
});

test('maxTf is the largest tf ever posted to the term', () => {
  const pool = new PostingsPool();
  pool.add(7, 1, 2);
  pool.add(7, 2, 5);
  pool.add(7, 3, 1);
  pool.removeAt(7, 1);
  assert.equal(pool.maxTf[pool.tix(7)!], 5);
  assert.deepEqual(list(pool, 7), [
    [1, 2],
    [3, 1],
  ]);
});
