import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cosine, distinctiveTerms, ewmaSeries, kMeans, normalizedEntropy, pearson, slope, spearman, weightedCentroid } from '../../src/services/cognition/math.js';
import { activationOf } from '../../src/services/cognition/workspace.js';
import { driftLevel } from '../../src/services/cognition/north-star.js';
import { identityStatus } from '../../src/services/cognition/ego.js';
import { learningMagnitude } from '../../src/utl/utl.js';

const v = (...xs: number[]) => Float32Array.from(xs);

describe('cognition math', () => {
  test('spearman follows ranks, pearson values; no variation gives null', () => {
    assert.equal(spearman([1, 2, 3, 4], [10, 20, 30, 1000]), 1);
    assert.equal(spearman([1, 2, 3, 4], [4, 3, 2, 1]), -1);
    assert.ok(pearson([1, 2, 3, 4], [10, 20, 30, 1000])! < 1);
    assert.equal(spearman([1, 2, 3], [5, 5, 5]), null);
    assert.equal(spearman([1, 2], [1, 2]), null);
    // Ties share the average rank.
    assert.ok(Math.abs(spearman([1, 1, 2, 3], [1, 2, 3, 4])! - 0.9487) < 1e-3);
  });

  test('entropy is 1 for equal shares and falls as one dominates', () => {
    assert.ok(Math.abs(normalizedEntropy([1, 1, 1, 1]) - 1) < 1e-12);
    assert.ok(normalizedEntropy([10, 1, 1, 1]) < normalizedEntropy([2, 1, 1, 1]));
    assert.equal(normalizedEntropy([1, 0, 0]), 0);
  });

  test('bias-corrected EWMA starts at the first value and leans to recent ones', () => {
    const s = ewmaSeries([0.2, 0.2, 0.9, 0.9], 0.5);
    assert.ok(Math.abs(s[0]! - 0.2) < 1e-12);
    assert.ok(s[3]! > (0.2 + 0.2 + 0.9 + 0.9) / 4, 'recent values weigh more than the mean');
    assert.ok(slope(s) > 0);
  });

  test('k-means separates two directions; centroids are unit length', () => {
    const vs = [v(1, 0.1, 0), v(0.9, 0.2, 0), v(0, 1, 0.1), v(0.1, 0.9, 0)];
    const { assignment, centroids } = kMeans(vs, 2);
    assert.equal(assignment[0], assignment[1]);
    assert.equal(assignment[2], assignment[3]);
    assert.notEqual(assignment[0], assignment[2]);
    for (const c of centroids) assert.ok(Math.abs(cosine(c, c) - 1) < 1e-6);
    const w = weightedCentroid([v(1, 0), v(0, 1)], [3, 1])!;
    assert.ok(cosine(w, v(1, 0)) > cosine(w, v(0, 1)), 'the heavier vector pulls the centroid');
  });

  test('distinctive terms are those of the group, not of everything', () => {
    const group = ['billing invoices monthly', 'invoices billing refunds'];
    const all = [...group, 'monthly lunch', 'monthly standup'];
    assert.deepEqual(distinctiveTerms(group, all, 2), ['billing', 'invoices']);
  });

  test('activation: importance and retrieval frequency raise it; L drops out when unknown', () => {
    const now = new Date('2026-01-02T00:00:00Z');
    const base = {
      nid: 1,
      id: 'a',
      topic: null,
      tags: [],
      content: 'x',
      importance: 0.5,
      access_count: 1,
      last_accessed_at: null,
      created_at: new Date('2026-01-01T00:00:00Z'),
      learning: null,
    };
    const a = activationOf(base, now, 4);
    assert.ok(Math.abs(a.parts.recency - 0.5) < 1e-9, 'one day old: half the recency');
    assert.ok(activationOf({ ...base, importance: 0.9 }, now, 4).activation > a.activation);
    assert.ok(activationOf({ ...base, access_count: 4 }, now, 4).activation > a.activation);
    assert.ok(Math.abs(a.activation - (0.3 * 0.5 + 0.3 * 0.5 + 0.2 * (Math.log(2) / Math.log(5))) / 0.8) < 1e-9);
  });

  test('levels and statuses follow their bands', () => {
    assert.deepEqual([0.01, 0.07, 0.15, 0.3].map(driftLevel), ['none', 'low', 'medium', 'high']);
    assert.deepEqual([0.95, 0.8, 0.6, 0.2].map(identityStatus), ['healthy', 'warning', 'degraded', 'critical']);
  });

  test('a refit λ replaces the lifecycle λ in L', () => {
    const perSpace = [{ surprise: 0.9, coherence: 0.2, weight: 1 }];
    const lifecycle = learningMagnitude(perSpace, 10).learning;
    assert.ok(Math.abs(lifecycle - Math.pow(0.9, 0.7) * Math.pow(0.2, 0.3)) < 1e-9);
    const fitted = learningMagnitude(perSpace, 10, { lambdaS: 0.2, lambdaC: 0.8 }).learning;
    assert.ok(Math.abs(fitted - Math.pow(0.9, 0.2) * Math.pow(0.2, 0.8)) < 1e-9);
    assert.ok(fitted < lifecycle);
  });
});
