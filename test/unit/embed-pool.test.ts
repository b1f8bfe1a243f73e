import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StaticOnnxEncoder } from '../../src/embed/static-onnx.js';
import { HDC_DIM, HDC_MODEL_ID, hdcEmbed } from '../../src/embed/hdc.js';
import { KEYWORD_MODEL_ID, keywordEmbed } from '../../src/embed/keyword.js';
import { OnnxEncoder, onnxModelId } from '../../src/embed/onnx.js';
import { createEmbedder } from '../../src/embed/pool.js';
import { createLogger } from '../../src/log.js';
import { makeTinyModel, type TinyModel } from '../fixtures/tiny-model.js';

const logger = createLogger('silent');
const close = (a: Float32Array, b: Float32Array, eps = 1e-6) => a.length === b.length && a.every((x, i) => Math.abs(x - b[i]!) < eps);

let root: string;
let model: TinyModel;

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'cg-embed-pool-'));
  model = await makeTinyModel(join(root, 'tiny-bert'));
});

after(async () => {
  await rm(root, { recursive: true, force: true });
});

const IMPLEMENTED = ['E1', 'E2', 'E3', 'E4', 'E5', 'E6', 'E7', 'E8', 'E9', 'E10', 'E11', 'E12', 'E13'];

test('default pool: E1 bundled GloVe, E5 on top of it, the model-free spaces, reported without a round trip', async () => {
  const embedder = await createEmbedder({ logger, threads: 2 });
  try {
    const encoders = embedder.encoders();
    assert.deepEqual(
      encoders.map((e) => e.space),
      IMPLEMENTED,
    );
    const of = (space: string) => encoders.find((e) => e.space === space);
    assert.deepEqual(of('E1'), { space: 'E1', modelId: 'glove-6b-100d-100k-int8-sif-pc1-v1', dim: 100, provider: 'glove-static' });
    assert.deepEqual(of('E5'), { space: 'E5', modelId: 'causal-clauses-v1+glove-6b-100d-100k-int8-sif-pc1-v1', dim: 201, provider: 'glove-static' });
    assert.deepEqual(of('E9'), { space: 'E9', modelId: HDC_MODEL_ID, dim: HDC_DIM, provider: 'model-free' });
    assert.deepEqual(of('E13'), { space: 'E13', modelId: KEYWORD_MODEL_ID, dim: 0, provider: 'model-free' });
    assert.equal(embedder.health().e1Provider, 'glove-static');
    assert.equal(embedder.health().modelDir, null);
    assert.equal(embedder.health().threads, 2);

    // Enough texts for several tasks on both threads: order must survive the split.
    const texts = Array.from({ length: 150 }, (_, i) => `memory number ${i} about topic ${i % 7}`);
    const out = await embedder.embed(texts);
    assert.deepEqual([...out.keys()], IMPLEMENTED);
    const e1 = out.get('E1')!;
    const e9 = out.get('E9')!;
    assert.equal(e1.length, texts.length);
    assert.equal(e9.length, texts.length);
    // The pool's E1 is the bundled model's own output, in order, whatever thread made it.
    const direct = await StaticOnnxEncoder.load();
    const expected = await direct.encode(texts);
    await direct.close?.();
    for (let i = 0; i < texts.length; i++) {
      assert.ok(e1[i] instanceof Float32Array && e9[i] instanceof Float32Array);
      for (let d = 0; d < 100; d++) assert.ok(Math.abs(e1[i]![d]! - expected[i]![d]!) < 1e-6);
      assert.deepEqual(e9[i], hdcEmbed(texts[i]!));
      assert.deepEqual(out.get('E13')![i], keywordEmbed(texts[i]!));
    }
  } finally {
    await embedder.close();
  }
});

test('model-free pool: requested spaces only, empty input, and unknown spaces rejected', async () => {
  const embedder = await createEmbedder({ logger, threads: 1 });
  try {
    const only9 = await embedder.embed(['typo robust'], ['E9']);
    assert.deepEqual([...only9.keys()], ['E9']);
    assert.equal(only9.get('E9')![0]!.length, HDC_DIM);
    const empty = await embedder.embed([]);
    assert.deepEqual(
      [...empty.entries()],
      IMPLEMENTED.map((s) => [s, []]),
    );
    await assert.rejects(embedder.embed(['x'], ['E14' as never]), /unknown embedding space/);
  } finally {
    await embedder.close();
  }
  await assert.rejects(embedder.embed(['x']), /closed/);
  await embedder.close();
});

test('one thread: an embedding a call waits for overtakes the background work queued before it, and background work keeps its order', async () => {
  const embedder = await createEmbedder({ logger, threads: 1 });
  try {
    // Warm: the thread exists and has its encoders, so the order below is the queue's alone.
    await embedder.embed(['warm up']);
    const texts = Array.from({ length: 64 }, (_, i) => `background memory ${i} about the nightly backup of the billing database`);
    const answered: string[] = [];
    const background = [0, 1, 2, 3].map((i) => embedder.embed(texts, undefined, { background: true }).then(() => answered.push(`background ${i}`)));
    const query = embedder.embed(['what did the billing team decide'], ['E1']).then((out) => (answered.push('query'), out));
    const [vectors] = await Promise.all([query, ...background]);
    // The first background task was already running; the query went before the three queued behind it.
    assert.deepEqual(answered, ['background 0', 'query', 'background 1', 'background 2', 'background 3']);
    assert.equal(vectors.get('E1')![0]!.length, embedder.encoders().find((e) => e.space === 'E1')!.dim);
  } finally {
    await embedder.close();
  }
});

test('ONNX pool: E1 from the model (same vectors as in-thread), E9 model-free, provider reported', async () => {
  const embedder = await createEmbedder({ logger, threads: 2, modelDir: model.dir });
  const direct = await OnnxEncoder.load(model.dir);
  try {
    const e1 = embedder.encoders().find((e) => e.space === 'E1');
    const e9 = embedder.encoders().find((e) => e.space === 'E9');
    assert.deepEqual(e1, { space: 'E1', modelId: await onnxModelId(model.dir), dim: model.dim, provider: 'onnx' });
    assert.deepEqual(e9, { space: 'E9', modelId: HDC_MODEL_ID, dim: HDC_DIM, provider: 'model-free' });
    assert.equal(embedder.health().e1Provider, 'onnx');
    assert.equal(embedder.health().modelDir, model.dir);

    const texts = Array.from({ length: 40 }, (_, i) => (i % 2 ? 'the cat sat on the mat ' : 'kubernetes deployment ') + i);
    const out = await embedder.embed(texts);
    const expected = await direct.encode(texts);
    const got = out.get('E1')!;
    assert.equal(got.length, texts.length);
    for (let i = 0; i < texts.length; i++) {
      assert.equal(got[i]!.length, model.dim);
      assert.ok(close(got[i]!, expected[i]!, 1e-5), `text ${i}`);
      assert.deepEqual(out.get('E9')![i], hdcEmbed(texts[i]!));
    }
  } finally {
    await direct.close();
    await embedder.close();
  }
});

test('ONNX pool: a bad model folder fails at creation with a clear message', async () => {
  await assert.rejects(createEmbedder({ logger, threads: 1, modelDir: join(root, 'missing-model') }), /CONTEXT_GRAPH_MODEL_DIR/);
});
