import { test } from 'node:test';
import assert from 'node:assert/strict';
import { charVector, createHdcEncoder, HDC_DIM, HDC_MODEL_ID, hdcEmbed, normalizeForHdc } from '../../src/embed/hdc.js';

const cos = (a: ArrayLike<number>, b: ArrayLike<number>, n = a.length) => {
  let s = 0;
  for (let i = 0; i < n; i++) s += a[i]! * b[i]!;
  return s;
};
const norm = (a: Float32Array) => Math.sqrt(cos(a, a));

test('char vectors are bipolar, cached, and near-orthogonal to each other', () => {
  const a = charVector(97);
  assert.equal(charVector(97), a);
  assert.equal(a.length, HDC_DIM + 2);
  const core = a.subarray(2);
  assert.ok(core.every((x) => x === 1 || x === -1));
  // The two leading components are the wrap-around of the last two (the permutation layout).
  assert.equal(a[0], core[HDC_DIM - 2]);
  assert.equal(a[1], core[HDC_DIM - 1]);
  let worst = 0;
  for (let c = 98; c < 123; c++) worst = Math.max(worst, Math.abs(cos(core, charVector(c).subarray(2)) / HDC_DIM));
  assert.ok(worst < 0.15, `max |cos| between char vectors ${worst}`);
});

test('normalisation lowercases and collapses whitespace', () => {
  assert.equal(normalizeForHdc('  Kubernetes \n\t Deployment  '), 'kubernetes deployment');
  assert.deepEqual(hdcEmbed('Kubernetes   DEPLOYMENT'), hdcEmbed('kubernetes deployment'));
});

test('vectors are 1024-d, unit length, deterministic; empty text is still a unit vector', () => {
  const v = hdcEmbed('hyperdimensional computing');
  assert.equal(v.length, HDC_DIM);
  assert.ok(Math.abs(norm(v) - 1) < 1e-6);
  assert.deepEqual(v, hdcEmbed('hyperdimensional computing'));
  for (const t of ['', 'a', 'ab']) assert.ok(Math.abs(norm(hdcEmbed(t)) - 1) < 1e-6, JSON.stringify(t));
  assert.equal(HDC_MODEL_ID, 'hdc-trigram-v1-1024');
});

test('robust to typos: a misspelling scores far above an unrelated text', () => {
  const base = hdcEmbed('kubernetes deployment');
  const typo = cos(base, hdcEmbed('kubernets deploymnet'));
  const unrelated = cos(base, hdcEmbed('chocolate cake recipe'));
  assert.ok(typo > 0.5, `typo ${typo}`);
  assert.ok(Math.abs(unrelated) < 0.15, `unrelated ${unrelated}`);
  assert.ok(typo - unrelated > 0.45);
  const longer = hdcEmbed('the connection pool of the postgres database was exhausted during the nightly batch');
  const longerTypo = cos(longer, hdcEmbed('the conection pool of the postgress databse was exhausted durng the nightly batch'));
  assert.ok(longerTypo > 0.6, `long typo ${longerTypo}`);
});

test('trigram order matters (permutation): a reversed word is not the same word', () => {
  const s = cos(hdcEmbed('stressed'), hdcEmbed('desserts'));
  assert.ok(s < 0.3, `${s}`);
});

test('fast: a 1,000-character text embeds in about a millisecond', () => {
  const text = 'Memory systems for agents store facts, decisions and their provenance; '.repeat(15).slice(0, 1000);
  for (let i = 0; i < 50; i++) hdcEmbed(text + i);
  const n = 200;
  const start = performance.now();
  for (let i = 0; i < n; i++) hdcEmbed(text.slice(i % 7) + i);
  const ms = (performance.now() - start) / n;
  // Target < 1 ms; the bound leaves room for a loaded CI machine.
  assert.ok(ms < 5, `${ms.toFixed(3)} ms per 1,000-char text`);
});

test('the encoder reports a model-free E9', async () => {
  const enc = createHdcEncoder();
  assert.deepEqual(enc.info, { space: 'E9', modelId: HDC_MODEL_ID, dim: HDC_DIM, provider: 'model-free' });
  assert.deepEqual(await enc.encode(['x', 'y']), [hdcEmbed('x'), hdcEmbed('y')]);
});
