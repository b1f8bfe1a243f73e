import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHashingEncoder, fmix32, fnv1a32, HASH_DIM, HASH_MODEL_ID, hashEmbed, hashFeatures } from '../../src/embed/hashing.js';

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const norm = (a: Float32Array) => Math.sqrt(cos(a, a));

test('fnv1a32 matches the published FNV-1a test vectors for ASCII', () => {
  assert.equal(fnv1a32(''), 0x811c9dc5);
  assert.equal(fnv1a32('a'), 0xe40c292c);
  assert.equal(fnv1a32('foobar'), 0xbf9cf968);
  // Wide code units hash both bytes: these must not collide with their low byte alone.
  assert.notEqual(fnv1a32('\u0161'), fnv1a32('a'));
  assert.notEqual(fmix32(1), fmix32(2));
});

test('features: lowercased unigrams, bigrams and boundary-marked char 3/4/5-grams with term counts', () => {
  const f = hashFeatures('Cat cat DOG');
  assert.equal(f.get('w\u0001cat'), 2);
  assert.equal(f.get('w\u0001dog'), 1);
  assert.equal(f.get('b\u0001cat cat'), 1);
  assert.equal(f.get('b\u0001cat dog'), 1);
  assert.equal(f.get('c\u0001<ca'), 2);
  assert.equal(f.get('c\u0001cat>'), 2);
  assert.equal(f.get('c\u0001<cat>'), 2);
  assert.equal(f.get('c\u0001<dog>'), 1);
  assert.equal(f.has('c\u0001<cat> '), false);
});

test('vectors are 384-d, unit length and deterministic', () => {
  const a = hashEmbed('The quick brown fox jumps over the lazy dog');
  const b = hashEmbed('The quick brown fox jumps over the lazy dog');
  assert.equal(a.length, HASH_DIM);
  assert.ok(Math.abs(norm(a) - 1) < 1e-6);
  assert.deepEqual(a, b);
  assert.equal(HASH_MODEL_ID, 'hash-ngram-v1-384');
});

test('empty and symbol-only texts still get a unit vector (no NaN, no zero vector)', () => {
  for (const t of ['', '   ', '!!! ???']) {
    const v = hashEmbed(t);
    assert.ok(Math.abs(norm(v) - 1) < 1e-6, JSON.stringify(t));
    assert.ok(v.every(Number.isFinite));
  }
});

test('similar texts score clearly higher than unrelated ones', () => {
  const pairs: Array<[string, string, string]> = [
    ['the cat sat on the mat', 'a cat was sitting on the mat', 'quarterly revenue grew in the asian markets'],
    ['deploy the kubernetes cluster to production', 'production deployment of the kubernetes cluster', 'my grandmother bakes apple pie on sundays'],
    ['postgres connection pool exhausted', 'the postgres pool ran out of connections', 'birds migrate south for the winter'],
  ];
  for (const [a, similar, unrelated] of pairs) {
    const va = hashEmbed(a);
    const sim = cos(va, hashEmbed(similar));
    const other = cos(va, hashEmbed(unrelated));
    assert.ok(sim > 0.3, `${a} ~ ${similar}: ${sim}`);
    // Only function words ("the", "on") overlap with the unrelated text.
    assert.ok(other < 0.25, `${a} vs ${unrelated}: ${other}`);
    assert.ok(sim - other > 0.25, `margin ${sim} vs ${other}`);
  }
});

test('char n-grams give partial credit to inflections', () => {
  const base = hashEmbed('deploying services');
  const inflected = cos(base, hashEmbed('deployed service'));
  const unrelated = cos(base, hashEmbed('chocolate cake'));
  assert.ok(inflected > unrelated + 0.2, `${inflected} vs ${unrelated}`);
});

test('the encoder reports a model-free E1 and encodes in order', async () => {
  const enc = createHashingEncoder();
  assert.deepEqual(enc.info, { space: 'E1', modelId: HASH_MODEL_ID, dim: HASH_DIM, provider: 'model-free' });
  const out = await enc.encode(['one', 'two']);
  assert.deepEqual(out, [hashEmbed('one'), hashEmbed('two')]);
});
