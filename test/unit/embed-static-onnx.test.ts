import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { appendFile, cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModelFilesError } from '../../src/embed/onnx.js';
import { bundledE1ModelDir, STATIC_PROVIDER, StaticOnnxEncoder } from '../../src/embed/static-onnx.js';

// Runs the committed assets/e1-glove model through the real onnxruntime-node: no network.
const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const norm = (a: Float32Array) => Math.sqrt(cos(a, a));
const close = (a: Float32Array, b: Float32Array, eps = 1e-5) => a.length === b.length && a.every((x, i) => Math.abs(x - b[i]!) < eps);

let encoder: StaticOnnxEncoder;
let root: string;

before(async () => {
  encoder = await StaticOnnxEncoder.load();
  root = await mkdtemp(join(tmpdir(), 'cg-static-onnx-'));
});

after(async () => {
  await encoder?.close();
  await rm(root, { recursive: true, force: true });
});

test('the bundled model loads from assets/e1-glove with its recipe id, 100 dims and the glove-static provider', () => {
  assert.ok(existsSync(join(bundledE1ModelDir(), 'model.onnx')), bundledE1ModelDir());
  assert.deepEqual(encoder.info, { space: 'E1', modelId: 'glove-6b-100d-100k-int8-sif-pc1-v1', dim: 100, provider: STATIC_PROVIDER });
  assert.equal(STATIC_PROVIDER, 'glove-static');
  assert.equal(encoder.vocabulary.size, 100_000);
  // The table is in GloVe frequency order: "the" is the first word, rare words are absent.
  assert.equal(encoder.vocabulary.idOf('the'), 0);
  assert.equal(encoder.vocabulary.idOf('qwzxv'), undefined);
});

test('related texts are closer than unrelated ones, with no word in common', async () => {
  const [car, automobile, cake] = await encoder.encode(['the car broke down on the highway', 'my automobile stopped working on the motorway', 'she baked a chocolate cake']);
  const related = cos(car!, automobile!);
  assert.ok(related > 0.4, `related cosine ${related}`);
  assert.ok(related > cos(car!, cake!) + 0.3, `car~automobile ${related} vs car~cake ${cos(car!, cake!)}`);
  assert.ok(related > cos(automobile!, cake!) + 0.3);
  const [cat, kitten, tax] = await encoder.encode(['cat', 'kitten', 'tax']);
  assert.ok(cos(cat!, kitten!) > cos(cat!, tax!) + 0.2, 'cat is nearer kitten than tax');
});

test('vectors are unit length, finite and 100-d', async () => {
  const texts = ['hello world', 'The Quick Brown Fox jumps over the lazy dog!', 'ok', 'ünïcödé café naïve', 'x '.repeat(5000) + 'memory'];
  for (const [i, v] of (await encoder.encode(texts)).entries()) {
    assert.equal(v.length, 100);
    assert.ok(v.every(Number.isFinite), `text ${i} has a non-finite component`);
    assert.ok(Math.abs(norm(v) - 1) < 1e-5, `text ${i} norm ${norm(v)}`);
  }
});

test('a text with no known word gives a zero vector, not NaN', async () => {
  // GloVe (as packaged) has no vector for "a", "i" or most numbers.
  const vectors = await encoder.encode(['', '   ', '!!! ??? ...', '12345 67890', 'qwzxv blorptastic', 'a i']);
  for (const v of vectors) {
    assert.equal(v.length, 100);
    assert.ok(
      v.every((x) => x === 0),
      `expected zeros, got ${Array.from(v.slice(0, 4)).join(', ')}`,
    );
  }
  // Alone in a batch too: the padded batch has a single all-masked column.
  const [alone] = await encoder.encode(['12345']);
  assert.ok(alone!.every((x) => x === 0));
});

test('batched results equal one-at-a-time results, whatever the batch cut and padding', async () => {
  const texts = [
    'short',
    'a somewhat longer sentence about the weather in spring',
    '',
    'kubernetes deployment of the search service failed again',
    'we went hiking in the mountains with our dogs last weekend and it rained the whole time',
    'tea',
    'what did caroline say about the adoption agency?',
    // Nine texts at the 2048-token cap pass the 16k padded-token budget of one run: the batch splits.
    ...Array.from({ length: 9 }, (_, i) => `${['bridge', 'boat', 'fish'][i % 3]} ${'the river flows past the old mill '.repeat(300)}`),
  ];
  const small = await StaticOnnxEncoder.load(bundledE1ModelDir(), { batchSize: 3, verify: false });
  try {
    const batched = await encoder.encode(texts);
    const cut = await small.encode(texts);
    for (const [i, text] of texts.entries()) {
      const [single] = await encoder.encode([text]);
      assert.ok(close(batched[i]!, single!), `text ${i} differs between batch and single`);
      assert.ok(close(cut[i]!, single!), `text ${i} differs with batchSize 3`);
    }
  } finally {
    await small.close();
  }
});

test('encodeWeighted: weight 1 equals encode, weight 0 drops a word, weights change the vector', async () => {
  const text = 'the dog chased the ball across the garden';
  const [plain] = await encoder.encode([text]);
  const [ones] = await encoder.encodeWeighted([text], () => 1);
  assert.ok(close(plain!, ones!));
  const [noDog] = await encoder.encodeWeighted([text], (w) => (w === 'dog' ? 0 : 1));
  const [without] = await encoder.encode(['the chased the ball across the garden']);
  assert.ok(close(noDog!, without!));
  // NaN, negative or infinite weights count as 0 rather than poisoning the vector.
  const [bad] = await encoder.encodeWeighted([text], (w) => (w === 'dog' ? Number.NaN : w === 'ball' ? -3 : 1));
  const [neither] = await encoder.encode(['the chased the across the garden']);
  assert.ok(close(bad!, neither!));
  const [dogHeavy] = await encoder.encodeWeighted([text], (w) => (w === 'dog' ? 20 : 1));
  const [dog] = await encoder.encode(['dog']);
  assert.ok(cos(dogHeavy!, dog!) > cos(plain!, dog!) + 0.1, 'a heavy weight pulls the vector towards the word');
  const [zeros] = await encoder.encodeWeighted([text], () => 0);
  assert.ok(zeros!.every((x) => x === 0));
});

test('maxTokens keeps the first known words of a long text', async () => {
  const capped = await StaticOnnxEncoder.load(bundledE1ModelDir(), { maxTokens: 3, verify: false });
  try {
    const [long] = await capped.encode(['ocean waves beach sand volcano lava eruption']);
    const [head] = await encoder.encode(['ocean waves beach']);
    assert.ok(close(long!, head!));
  } finally {
    await capped.close();
  }
});

test('a folder whose files do not match config.json, or that lacks them, is refused', async () => {
  const copy = join(root, 'tampered');
  await cp(bundledE1ModelDir(), copy, { recursive: true });
  await appendFile(join(copy, 'vocab.txt'), 'extraword\n');
  await assert.rejects(StaticOnnxEncoder.load(copy), (err: Error) => err instanceof ModelFilesError && /sha256/.test(err.message));
  // Without the hash check the word count still has to match the table.
  await assert.rejects(StaticOnnxEncoder.load(copy, { verify: false }), (err: Error) => err instanceof ModelFilesError && /100001 words/.test(err.message));
  await assert.rejects(StaticOnnxEncoder.load(join(root, 'missing')), (err: Error) => err instanceof ModelFilesError && /config\.json not found/.test(err.message));
});
