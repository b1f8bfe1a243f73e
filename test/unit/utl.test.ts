import assert from 'node:assert/strict';
import { test } from 'node:test';
import { packTerms } from '../../src/embed/keyword.js';
import { addSample, learningMagnitude, quadrantOf, spaceSimilarity, spaceUtl, stageOf } from '../../src/utl/utl.js';

const empty = { n: 0, mean: 0, m2: 0 };

test('ΔS: a memory with no earlier one is all new; one with a twin is not', () => {
  assert.equal(spaceUtl({ sims: [], centroidCos: 0, neighbourConsistency: 0, edges: 0, stats: empty }).surprise, 1);
  const twin = spaceUtl({ sims: [0.99, 0.2, 0.1, 0.05, 0.1, 0.0], centroidCos: 0.4, neighbourConsistency: 0.2, edges: 0, stats: empty });
  const stranger = spaceUtl({ sims: [0.1, 0.05, 0.0, 0.02, 0.01, 0.0], centroidCos: 0.0, neighbourConsistency: 0.2, edges: 0, stats: empty });
  assert.ok(twin.surprise < stranger.surprise);
});

test('ΔS is relative to the store distribution once it has five samples', () => {
  let stats = empty;
  for (const d of [0.5, 0.55, 0.6, 0.45, 0.5, 0.52]) stats = addSample(stats, d);
  const sims = [0.5, 0.5, 0.5, 0.5, 0.5, 0.1];
  const usual = spaceUtl({ sims, centroidCos: 0, neighbourConsistency: 0, edges: 0, stats });
  const far = spaceUtl({ sims: sims.map((s) => s - 0.3), centroidCos: 0, neighbourConsistency: 0, edges: 0, stats });
  assert.ok(usual.surprise > 0.3 && usual.surprise < 0.7, String(usual.surprise));
  assert.ok(far.surprise > 0.95);
});

test('ΔC grows with edges, cluster fit and consistency', () => {
  const base = { sims: [0.8, 0.7, 0.7, 0.6, 0.6, 0.1, 0.1, 0.0], centroidCos: 0.3, neighbourConsistency: 0.1, stats: empty };
  assert.ok(spaceUtl({ ...base, edges: 5 }).coherence > spaceUtl({ ...base, edges: 0 }).coherence);
  assert.ok(spaceUtl({ ...base, edges: 0, neighbourConsistency: 0.9 }).coherence > spaceUtl({ ...base, edges: 0 }).coherence);
});

test('Johari quadrants and lifecycle stages follow the seed', () => {
  assert.equal(quadrantOf(0.2, 0.8), 'open');
  assert.equal(quadrantOf(0.2, 0.2), 'hidden');
  assert.equal(quadrantOf(0.8, 0.2), 'blind');
  assert.equal(quadrantOf(0.8, 0.8), 'unknown');
  assert.equal(quadrantOf(0.5, 0.5), 'blind');
  assert.deepEqual([stageOf(10).stage, stageOf(100).stage, stageOf(1000).stage], ['infancy', 'growth', 'maturity']);
});

test('L is high only when new and coherent; a young store weighs novelty more', () => {
  const one = (s: number, c: number, n: number) => learningMagnitude([{ surprise: s, coherence: c, weight: 1 }], n).learning;
  assert.ok(one(0.9, 0.9, 10) > one(0.9, 0.1, 10));
  assert.ok(one(0.9, 0.9, 10) > one(0.1, 0.9, 10));
  assert.ok(one(0.9, 0.3, 10) > one(0.9, 0.3, 1000), 'infancy values novelty');
  assert.ok(one(0.3, 0.9, 1000) > one(0.3, 0.9, 10), 'maturity values coherence');
});

test('sparse similarity is the cosine of term weights', () => {
  const a = packTerms(
    new Map([
      [1, 1],
      [2, 1],
    ]),
  );
  const b = packTerms(
    new Map([
      [2, 1],
      [3, 1],
    ]),
  );
  assert.ok(Math.abs(spaceSimilarity(true, a, b) - 0.5) < 1e-6);
  assert.equal(spaceSimilarity(true, a, packTerms(new Map([[9, 1]]))), 0);
});
