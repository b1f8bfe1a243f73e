import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hdcEmbed } from '../../src/embed/hdc.js';
import { cosine } from '../../src/services/cognition/math.js';
import { encodeVector, fromBytes } from '../../src/store/vector-bytes.js';
import { mulberry32 } from '../helpers/prng.js';

test('an E9 vector is stored as int8 multiples of one unit (dim + 4 bytes) and reads back to the same floats', () => {
  for (const text of ['The tide clock runs eleven minutes fast.', 'x', 'Deployment rollback runbook, reviewed twice this quarter.'.repeat(4)]) {
    const v = hdcEmbed(text);
    const bytes = encodeVector(v, true);
    assert.equal(bytes.byteLength, v.length + 4, text);
    const back = fromBytes(bytes, v.length);
    for (let i = 0; i < v.length; i++) assert.ok(Math.abs(back[i]! - v[i]!) <= Math.abs(v[i]!) * 1e-6, `component ${i}: ${back[i]} vs ${v[i]}`);
    assert.ok(cosine(back, v) > 1 - 1e-9);
  }
});

test('a vector off the grid, a zero vector and a grid beyond 127 multiples stay float32, exactly', () => {
  const next = mulberry32(5);
  const continuous = Float32Array.from({ length: 100 }, () => next() - 0.5);
  const wide = Float32Array.from({ length: 8 }, (_, i) => (i === 0 ? 200 : 1) * 0.01);
  for (const v of [continuous, new Float32Array(16), wide]) {
    const bytes = encodeVector(v, true);
    assert.equal(bytes.byteLength, 4 * v.length);
    assert.deepEqual(fromBytes(bytes, v.length), v);
  }
});

test('a packed sparse row is never put on the grid, however its floats look', () => {
  const packed = Float32Array.from([1, 2, 3, 4]);
  const bytes = encodeVector(packed, false);
  assert.equal(bytes.byteLength, 16);
  assert.deepEqual(fromBytes(bytes, packed.length), packed);
});
