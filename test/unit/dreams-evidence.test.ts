import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clustersOf, coRetrievals, decayed, hebbian, noisyOr, pairKey, pruningScore, replayOrder, WEIGHT_FLOOR } from '../../src/services/dreams/evidence.js';
import type { LoggedRetrieval } from '../../src/store/retrieval-log-repo.js';

const retrieval = (id: number, hits: Array<[string, number]>): LoggedRetrieval => ({
  id,
  at: new Date(0),
  session_id: null,
  actor: 't',
  tool: 'search',
  project_id: 'p',
  query: `q${id}`,
  hits: hits.map(([hid, score], i) => ({ nid: i + 1, id: hid, score, signals: {} })),
  signal_top: {},
});

test('co-retrieval pairs: one event per retrieval among the first k kept hits, with the product of their scores', () => {
  const pairs = coRetrievals(
    [
      retrieval(2, [
        ['b', 0.8],
        ['x', 0.9],
        ['a', 0.5],
      ]),
      retrieval(1, [
        ['a', 1],
        ['b', 0.5],
        ['c', 0.4],
      ]),
    ],
    (id) => id !== 'x',
    2,
  );
  assert.deepEqual([...pairs.keys()].sort(), [pairKey('a', 'b')]);
  const ab = pairs.get(pairKey('b', 'a'))!;
  assert.deepEqual(
    ab.events.map((e) => [e.retrievalId, e.strength]),
    [
      [1, 0.5],
      [2, 0.4],
    ],
  );
  assert.equal(ab.a, 'a');
});

test('the same question asked twice is one piece of evidence: its strongest strength and newest retrieval', () => {
  const twice = [
    retrieval(1, [
      ['a', 0.5],
      ['b', 0.5],
    ]),
    {
      ...retrieval(2, [
        ['a', 0.9],
        ['b', 0.9],
      ]),
      query: ' Q1 ',
    },
  ];
  const [ab] = [...coRetrievals(twice, () => true).values()];
  assert.equal(ab!.events.length, 1);
  assert.equal(ab!.events[0]!.retrievalId, 2);
  assert.ok(Math.abs(ab!.events[0]!.strength - 0.81) < 1e-9);
});

test('Hebbian update moves the weight towards 1 by η·s of the remaining way, per co-retrieval', () => {
  assert.equal(hebbian(0.5, []), 0.5);
  assert.equal(hebbian(0.5, [1], 0.5), 0.75);
  assert.ok(Math.abs(hebbian(0.5, [0.4, 0.4], 0.5) - (0.5 + 0.2 * 0.5 + 0.2 * 0.4)) < 1e-9);
  assert.ok(hebbian(0.99, [1, 1, 1]) <= 1);
  assert.ok(hebbian(0.5, [0.9]) > hebbian(0.5, [0.1]), 'stronger co-retrieval, larger step');
});

test('noisy-OR confidence grows with each independent co-retrieval', () => {
  assert.equal(noisyOr([]), 0);
  assert.ok(Math.abs(noisyOr([0.5, 0.5]) - 0.75) < 1e-9);
  assert.ok(noisyOr([0.3, 0.3, 0.3]) > noisyOr([0.3, 0.3]));
});

test('decay halves per half-life of idle time and stops at the floor', () => {
  assert.equal(decayed(0.8, 0), 0.8);
  assert.ok(Math.abs(decayed(0.8, 90, 90) - 0.4) < 1e-9);
  assert.equal(decayed(0.8, 10_000), WEIGHT_FLOOR);
  assert.equal(decayed(0.04, 50), 0.04, 'below the floor: untouched');
});

test('replay order: highest learning magnitude first, unmeasured last, recency breaks ties', () => {
  const order = replayOrder([
    { id: 'old-high', learning: 0.9, recency: 1 },
    { id: 'none', learning: null, recency: 9 },
    { id: 'new-low', learning: 0.2, recency: 8 },
    { id: 'new-high', learning: 0.9, recency: 5 },
  ]);
  assert.deepEqual(
    order.map((m) => m.id),
    ['new-high', 'old-high', 'new-low', 'none'],
  );
});

test('near-duplicate pairs join into clusters transitively', () => {
  assert.deepEqual(
    clustersOf([
      ['a', 'b'],
      ['c', 'b'],
      ['x', 'y'],
    ]),
    [
      ['a', 'b', 'c'],
      ['x', 'y'],
    ],
  );
});

test('pruning score: every factor must agree (any zero factor keeps a memory)', () => {
  const base = { importance: 0.2, accessCount: 0, idleRank: 1, redundancy: 0.9 };
  assert.ok(Math.abs(pruningScore(base) - 0.8 * 0.9) < 1e-9);
  assert.ok(pruningScore({ ...base, accessCount: 3 }) < pruningScore(base));
  assert.ok(pruningScore({ ...base, importance: 0.9 }) < pruningScore(base));
  assert.equal(pruningScore({ ...base, idleRank: 0 }), 0);
  assert.equal(pruningScore({ ...base, redundancy: 0 }), 0);
});
