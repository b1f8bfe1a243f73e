import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dcgAt, ndcgAt, overlapRecall, recallAt, reciprocalRank, scoreRuns } from '../../bench/metrics.js';
import { makeQualitySet } from '../../bench/quality/generate.js';
import { percentile, repeated, summarize } from '../../bench/stats.js';

const rel = (o: Record<string, number>) => new Map(Object.entries(o));
const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-9, `${a} != ${b}`);

test('recall@k counts relevant ids in the first k, once each', () => {
  const r = rel({ a: 1, b: 1, c: 1, d: 1 });
  close(recallAt(['a', 'x', 'b', 'y', 'c'], r, 3), 2 / 4);
  close(recallAt(['a', 'x', 'b', 'y', 'c'], r, 5), 3 / 4);
  close(recallAt(['a', 'a', 'a'], r, 3), 1 / 4);
  close(recallAt(['x'], rel({}), 5), 0);
});

test('MRR is 1/rank of the first relevant result', () => {
  const r = rel({ c: 1, e: 2 });
  close(reciprocalRank(['a', 'b', 'c', 'e'], r), 1 / 3);
  close(reciprocalRank(['e'], r), 1);
  close(reciprocalRank(['a', 'b'], r), 0);
});

test('nDCG@k matches a hand computation with graded gains', () => {
  // ranking: x (0), b (gain 1), a (gain 2); ideal: a (2), b (1)
  const r = rel({ a: 2, b: 1 });
  const dcg = (2 ** 1 - 1) / Math.log2(3) + (2 ** 2 - 1) / Math.log2(4); // 1/1.58496 + 3/2
  const idcg = (2 ** 2 - 1) / Math.log2(2) + (2 ** 1 - 1) / Math.log2(3); // 3 + 1/1.58496
  close(ndcgAt(['x', 'b', 'a'], r, 10), dcg / idcg);
  close(ndcgAt(['a', 'b'], r, 10), 1);
  close(ndcgAt(['x', 'y'], r, 10), 0);
  // the cut-off drops a relevant id past k
  close(ndcgAt(['x', 'b', 'a'], r, 2), 1 / Math.log2(3) / idcg);
  close(dcgAt([1, 0, 1], 3), 1 + 1 / 2);
});

test('scoreRuns averages over queries', () => {
  const s = scoreRuns([
    { ranked: ['a'], relevant: rel({ a: 1 }) },
    { ranked: ['x', 'b'], relevant: rel({ b: 1 }) },
  ]);
  assert.equal(s.n, 2);
  close(s.mrr, 0.75);
  close(s.recall_at_5, 1);
  // query 1: nDCG 1; query 2: relevant at rank 2 → (1/log2 3) / 1; means are rounded to 4 places
  assert.ok(Math.abs(s.ndcg_at_10 - (1 + 1 / Math.log2(3)) / 2) < 1e-4);
});

test('vector recall@k is the overlap with the exact neighbours', () => {
  close(
    overlapRecall(
      [
        [1n, 2n, 3n],
        [4n, 5n, 6n],
      ],
      [
        [1n, 2n, 9n],
        [6n, 5n, 4n],
      ],
      3,
    ),
    (2 / 3 + 1) / 2,
  );
  close(overlapRecall([[1, 2]], [[3, 4]], 2), 0);
});

test('percentiles (nearest rank), summaries and repeated-run medians', () => {
  const xs = Array.from({ length: 100 }, (_, i) => i + 1);
  assert.equal(percentile(xs, 50), 50);
  assert.equal(percentile(xs, 95), 95);
  assert.equal(percentile(xs, 99), 99);
  assert.equal(summarize([3, 1, 2]).p50_ms, 2);
  assert.deepEqual({ ...repeated([5, 1, 3]), runs: [] }, { median: 3, min: 1, max: 5, runs: [] });
  assert.equal(repeated([1, 2, 3, 4]).median, 2.5);
});

test('the quality set is reproducible from its seed and its judgements point at stored memories', () => {
  const a = makeQualitySet(7, { distractors: 50, perCategory: 5 });
  const b = makeQualitySet(7, { distractors: 50, perCategory: 5 });
  assert.deepEqual(a, b);
  assert.notDeepEqual(makeQualitySet(8, { distractors: 50, perCategory: 5 }).queries, a.queries);
  const keys = new Set(a.memories.map((m) => m.key));
  for (const q of a.queries) {
    assert.ok(Object.keys(q.relevant).length > 0, q.id);
    for (const k of Object.keys(q.relevant)) assert.ok(keys.has(k), `${q.id} -> ${k}`);
  }
  assert.deepEqual(new Set(a.queries.map((q) => q.category)), new Set(['paraphrase', 'detail', 'temporal', 'two_hop', 'near_duplicate']));
});
