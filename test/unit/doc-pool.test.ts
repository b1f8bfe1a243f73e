import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DocPool } from '../../src/index/doc-pool.js';

function put(pool: DocPool, slot: number, terms: number[]): void {
  const at = pool.alloc(slot, terms.length);
  terms.forEach((t, i) => {
    pool.terms[at + i] = t;
    pool.tfs[at + i] = t / 2;
    pool.pos[at + i] = t * 3;
  });
}

function read(pool: DocPool, slot: number): Array<[number, number, number]> {
  const from = pool.start[slot]!;
  return Array.from({ length: pool.count[slot]! }, (_, i) => [pool.terms[from + i]!, pool.tfs[from + i]!, pool.pos[from + i]!]);
}

test('released ranges are reclaimed: the arrays stop growing under churn, and every live range keeps its entries', () => {
  const pool = new DocPool();
  const terms = (slot: number, round: number) => Array.from({ length: 50 + ((slot + round) % 7) }, (_, i) => i * 2 + ((slot + round) % 2));
  for (let slot = 0; slot < 100; slot++) put(pool, slot, terms(slot, 0));
  const size = pool.terms.length;
  for (let round = 1; round <= 20; round++) {
    for (let slot = round % 2; slot < 100; slot += 2) {
      pool.release(slot);
      put(pool, slot, terms(slot, round));
    }
  }
  // Without compaction, 20 rounds would have needed ~11× the entries.
  assert.ok(pool.terms.length <= 2 * size, `${pool.terms.length} entries against ${size} at the start`);
  for (let slot = 0; slot < 100; slot++) {
    const round = slot % 2 === 0 ? 20 : 19;
    assert.deepEqual(
      read(pool, slot),
      terms(slot, round).map((t) => [t, t / 2, t * 3]),
    );
    const t = terms(slot, round)[3]!;
    assert.equal(pool.terms[pool.find(slot, t)], t);
    assert.equal(pool.find(slot, 1_000), -1);
  }
  assert.equal(
    pool.live,
    [...Array(100).keys()].reduce((s, slot) => s + pool.count[slot]!, 0),
  );
});
