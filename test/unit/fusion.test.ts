import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fuseRanks, fuseScores, MAXSIM_FLOOR, MIN_MAX_POPULATION, RRF_K, type RankedSignal } from '../../src/services/fusion.js';

const hits = (...keys: number[]) => keys.map((key, i) => ({ key, score: 1 - i / 10 }));

test('a document first in every signal scores 1 and ranks first', () => {
  const fused = fuseRanks([
    { name: 'lexical', weight: 1, hits: hits(7, 3, 5) },
    { name: 'E1', weight: 1, hits: hits(7, 5) },
  ]);
  assert.equal(fused[0]!.key, 7);
  assert.equal(fused[0]!.score, 1);
  assert.deepEqual(fused[0]!.signals, { lexical: { rank: 1, score: 1 }, E1: { rank: 1, score: 1 } });
});

test('weighted RRF matches the formula by hand', () => {
  const fused = fuseRanks([
    { name: 'lexical', weight: 1, hits: hits(1, 2) },
    { name: 'E1', weight: 1, hits: hits(2, 1) },
    { name: 'E9', weight: 0.5, hits: hits(3) },
  ]);
  const best = 2.5 / (RRF_K + 1);
  const expected = new Map([
    [1, (1 / 61 + 1 / 62) / best],
    [2, (1 / 62 + 1 / 61) / best],
    [3, 0.5 / 61 / best],
  ]);
  for (const f of fused) assert.ok(Math.abs(f.score - expected.get(f.key)!) < 1e-12, `key ${f.key}`);
  // 1 and 2 tie exactly; the tie breaks on key.
  assert.deepEqual(
    fused.map((f) => f.key),
    [1, 2, 3],
  );
});

test('a key listed twice by one signal counts once, at its best rank', () => {
  const fused = fuseRanks([
    {
      name: 'E1',
      weight: 1,
      hits: [
        { key: 4, score: 0.9 },
        { key: 4, score: 0.1 },
        { key: 5, score: 0.05 },
      ],
    },
  ]);
  assert.deepEqual(
    fused.map((f) => [f.key, f.signals.E1!.rank]),
    [
      [4, 1],
      [5, 2],
    ],
  );
});

test('zero-weight signals and empty input contribute nothing', () => {
  assert.deepEqual(fuseRanks([]), []);
  const fused = fuseRanks([
    { name: 'lexical', weight: 0, hits: hits(9) },
    { name: 'E1', weight: 1, hits: hits(8) },
  ]);
  assert.deepEqual(
    fused.map((f) => f.key),
    [8],
  );
});

test('the result does not depend on the order signals are given in (seeded generative check)', () => {
  let seed = 12345;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let round = 0; round < 200; round++) {
    const startSeed = seed;
    const signals: RankedSignal[] = ['lexical', 'E1', 'E9', 'E2'].map((name) => ({
      name,
      weight: Math.round(rand() * 4) / 2,
      hits: Array.from({ length: Math.floor(rand() * 20) }, () => ({ key: Math.floor(rand() * 30), score: rand() })),
    }));
    const a = fuseRanks(signals);
    const b = fuseRanks([...signals].reverse());
    assert.deepEqual(a, b, `seed ${startSeed}`);
  }
});

test('weighted score sum: BM25 over its best, cosine min-max over its candidates, absent adds 0', () => {
  // Enough candidates for min-max (MIN_MAX_POPULATION): 17 fillers at the minimum.
  const fillers = Array.from({ length: MIN_MAX_POPULATION - 3 }, (_, i) => ({ key: 100 + i, score: 0.5 }));
  const fused = fuseScores(
    [
      {
        name: 'lexical',
        weight: 1,
        hits: [
          { key: 1, score: 8 },
          { key: 2, score: 2 },
        ],
      },
      { name: 'E1', weight: 1, hits: [{ key: 2, score: 0.9 }, { key: 3, score: 0.7 }, { key: 1, score: 0.5 }, ...fillers] },
    ],
    'lexical',
  );
  // key 1: (8/8 + 0)/2 = 0.5; key 2: (2/8 + 1)/2 = 0.625; key 3: (0 + 0.5)/2 = 0.25.
  assert.deepEqual(
    fused.slice(0, 3).map((f) => [f.key, Number(f.score.toFixed(6))]),
    [
      [2, 0.625],
      [1, 0.5],
      [3, 0.25],
    ],
  );
  assert.deepEqual(fused[0]!.signals, { lexical: { rank: 2, score: 2 }, E1: { rank: 1, score: 0.9 } });
});

test('weighted score sum scales a short list from 0: two near-equal matches in a small project stay near-equal', () => {
  const fused = fuseScores(
    [
      {
        name: 'E1',
        weight: 1,
        hits: [
          { key: 1, score: 0.8 },
          { key: 2, score: 0.78 },
        ],
      },
    ],
    'lexical',
  );
  assert.equal(fused[0]!.score, 1);
  assert.ok(fused[1]!.score > 0.95, `second scored ${fused[1]!.score}`);
});

test('a short list is scaled from the signal’s floor: MaxSim of unrelated memories earns nothing, all below it nothing at all', () => {
  const maxsim = (scores: number[]): RankedSignal => ({ name: 'E12', weight: 1, floor: MAXSIM_FLOOR, hits: scores.map((score, i) => ({ key: i + 1, score })) });
  const fused = fuseScores([maxsim([0.95, MAXSIM_FLOOR, 0.55])], 'lexical');
  assert.deepEqual(
    fused.map((f) => f.score),
    [1, 0, 0],
  );
  assert.deepEqual(
    fuseScores([maxsim([0.7, 0.6])], 'lexical').map((f) => f.score),
    [0, 0],
  );
  // From MIN_MAX_POPULATION candidates up, min-max over them as for any other signal.
  const long = fuseScores([maxsim(Array.from({ length: MIN_MAX_POPULATION }, (_, i) => 0.7 - i * 0.01))], 'lexical');
  assert.equal(long[0]!.score, 1);
  assert.equal(long.at(-1)!.score, 0);
});

test('weighted score sum keeps the strength of a match that ranks throw away', () => {
  // A strong keyword match the dense side ranks second beats a weak keyword match it ranks
  // first, by a wide margin; RRF ties the two.
  const signals: RankedSignal[] = [
    {
      name: 'lexical',
      weight: 1,
      hits: [
        { key: 1, score: 10 },
        { key: 2, score: 1 },
      ],
    },
    {
      name: 'E1',
      weight: 1,
      hits: [
        { key: 2, score: 0.8 },
        { key: 1, score: 0.78 },
        { key: 3, score: 0.3 },
      ],
    },
  ];
  const byRank = fuseRanks(signals);
  assert.equal(byRank.find((f) => f.key === 1)!.score, byRank.find((f) => f.key === 2)!.score);
  const byScore = fuseScores(signals, 'lexical');
  assert.equal(byScore[0]!.key, 1);
  assert.ok(byScore[0]!.score - byScore[1]!.score > 0.3);
});
