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

/** The per-component bundling hdcEmbed replaced: its vectors are the ones stored under HDC_MODEL_ID. */
function referenceEmbed(text: string): Float32Array {
  const cps = Array.from(' ' + normalizeForHdc(text) + ' ', (ch) => ch.codePointAt(0)!);
  while (cps.length < 3) cps.push(0x20);
  const acc = new Int32Array(HDC_DIM);
  for (let t = 0; t + 2 < cps.length; t++) {
    const [a, b, c] = [charVector(cps[t]!), charVector(cps[t + 1]!), charVector(cps[t + 2]!)];
    for (let i = 0; i < HDC_DIM; i++) acc[i] = acc[i]! + a[i]! * b[i + 1]! * c[i + 2]!;
  }
  const out = Float32Array.from(acc);
  const len = Math.sqrt(out.reduce((s, x) => s + x * x, 0));
  return out.map((x) => x / len);
}

test('bit-sliced bundling gives exactly the per-component vectors (model id unchanged)', () => {
  let seed = 7;
  const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const alphabet = [...'abcdefgh  ', 'é', 'ß', 'Ω', '中', '😀', '𝔸', '\u{2F800}'];
  const texts = ['', 'a', 'ab', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'la la la la la la la la', 'Memory systems for agents store facts. '.repeat(40)];
  for (let i = 0; i < 60; i++) texts.push(Array.from({ length: 1 + Math.floor(rand() * 300) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join(''));
  for (const t of texts) {
    const got = hdcEmbed(t);
    const want = referenceEmbed(t);
    // Same integers before normalising; the normalisation may differ in the last float bit.
    for (let i = 0; i < HDC_DIM; i++) assert.ok(Math.abs(got[i]! - want[i]!) < 1e-6, `${JSON.stringify(t.slice(0, 40))} component ${i}: ${got[i]} vs ${want[i]}`);
    assert.deepEqual(Array.from(got, Math.sign), Array.from(want, Math.sign));
  }
});

test('the encoder reports a model-free E9', async () => {
  const enc = createHdcEncoder();
  assert.deepEqual(enc.info, { space: 'E9', modelId: HDC_MODEL_ID, dim: HDC_DIM, provider: 'model-free' });
  assert.deepEqual(await enc.encode(['x', 'y']), [hdcEmbed('x'), hdcEmbed('y')]);
});
