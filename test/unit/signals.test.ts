import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyMap, calibrationMetrics, fitPlatt, IDENTITY, thresholdFor, type Observation } from '../../src/services/signals/calibration.js';
import { agreementOf, nextCoherence, orderParameter, stepPhases, syncFactor } from '../../src/services/signals/kuramoto.js';
import { excessAt, levelFrom, mmrLambda } from '../../src/services/signals/neuromodulation.js';
import { mmrOrder } from '../../src/services/mmr.js';

describe('signals math', () => {
  test('agreement weighs the fused top by position; a signal not asked has none', () => {
    const hits = [1, 2, 3].map((nid) => ({ nid, id: String(nid), score: 1, signals: {} }));
    assert.equal(agreementOf(hits, { a: [1, 2, 3] }, 'a'), 1);
    assert.equal(agreementOf(hits, { a: [1] }, 'a'), 1 / (1 + 1 / 2 + 1 / 3));
    assert.equal(agreementOf(hits, { a: [1] }, 'b'), null);
  });

  test('an agreeing space stays locked near the pacemaker; a disagreeing one drifts unless K holds it', () => {
    const run = (coupling: number) => {
      const phases = new Map<string, number>();
      let coherence: [number, number] = [1, 0];
      for (let i = 0; i < 60; i++) {
        stepPhases(
          phases,
          new Map([
            ['good', 1],
            ['bad', 0.2],
          ]),
          coupling,
          1,
        );
        coherence = nextCoherence(coherence, phases.get('bad')!);
      }
      return { good: phases.get('good')!, factor: syncFactor(coherence), r: orderParameter(phases.values())!.r };
    };
    const weak = run(0.1);
    const strong = run(5);
    assert.ok(Math.abs(weak.good) < 0.2);
    assert.ok(weak.factor < 0.3, `drifting factor ${weak.factor}`);
    assert.ok(strong.factor > 0.9, `locked factor ${strong.factor}`);
    assert.ok(strong.r > weak.r);
  });

  test('modulator impulses decay to the baseline by their half-life; noradrenaline above baseline turns MMR on', () => {
    const excess = excessAt([{ modulator: 'noradrenaline', at: 0, delta: 0.4 }], 0);
    assert.equal(levelFrom('noradrenaline', excess.noradrenaline, 0, 0), 0.9);
    assert.ok(Math.abs(levelFrom('noradrenaline', excess.noradrenaline, 0, 15 * 60_000) - 0.7) < 1e-9);
    assert.equal(mmrLambda(0.5), 1);
    assert.ok(mmrLambda(0.9) < 0.5);
  });

  test('Platt fit lowers ECE on miscalibrated scores and puts the threshold between the classes', () => {
    const obs: Observation[] = [];
    for (let i = 0; i < 20; i++) obs.push({ score: 0.55 + (i % 5) * 0.01, relevant: true }, { score: 0.4 + (i % 5) * 0.01, relevant: false });
    const map = fitPlatt(obs);
    assert.ok(calibrationMetrics(obs, map).ece! < calibrationMetrics(obs, IDENTITY).ece!);
    const t = thresholdFor(map)!;
    assert.ok(t > 0.44 && t < 0.55, `threshold ${t}`);
    assert.ok(applyMap(map, 0.6) > 0.5 && applyMap(map, 0.4) < 0.5);
  });

  test('MMR at λ = 1 keeps the relevance order; lower λ skips a near duplicate', () => {
    const hits = [
      { score: 1, text: 'backup runs nightly at two' },
      { score: 0.95, text: 'backup runs nightly at two!' },
      { score: 0.8, text: 'restores need a ticket' },
    ];
    assert.deepEqual(
      mmrOrder(hits, (h) => h.text, 1, 2),
      hits.slice(0, 2),
    );
    assert.deepEqual(
      mmrOrder(hits, (h) => h.text, 0.3, 2),
      [hits[0], hits[2]],
    );
  });

  test('a space first seen at gain 0 (dopamine at its floor) gets phase 0, not NaN, and does not move', () => {
    const phases = new Map<string, number>();
    stepPhases(phases, new Map([['E1', 0.2]]), 0.6, 0);
    assert.equal(phases.get('E1'), 0);
    stepPhases(phases, new Map([['E1', 0.2]]), 0.6, 1);
    assert.ok(phases.get('E1')! > 0, 'at gain 1 the disagreeing space moves');
  });
});
