import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { BertTokenizer, OnnxEncoder, onnxModelId } from '../../src/embed/onnx.js';
import { makeTinyModel, type TinyModel } from '../fixtures/tiny-model.js';

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const norm = (a: Float32Array) => Math.sqrt(cos(a, a));
const close = (a: Float32Array, b: Float32Array, eps = 1e-5) => a.length === b.length && a.every((x, i) => Math.abs(x - b[i]!) < eps);

let root: string;
let model: TinyModel;
let encoder: OnnxEncoder;
const id = (t: string) => model.vocab.indexOf(t);

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'cg-embed-onnx-'));
  model = await makeTinyModel(join(root, 'tiny-bert'));
  encoder = await OnnxEncoder.load(model.dir);
});

after(async () => {
  await encoder?.close();
  await rm(root, { recursive: true, force: true });
});

test('tokenizer: [CLS] … [SEP] around lowercased word pieces, ## continuations, no padding for one text', async () => {
  const tok = await BertTokenizer.load(model.dir);
  assert.equal(tok.clsId, id('[CLS]'));
  assert.equal(tok.sepId, id('[SEP]'));
  assert.equal(tok.padId, 0);
  assert.deepEqual(tok.ids('The CAT sat.'), [id('[CLS]'), id('the'), id('cat'), id('sat'), id('.'), id('[SEP]')]);
  // "deployments" is not in the vocabulary: WordPiece splits it into deployment + ##s.
  assert.deepEqual(tok.ids('deployments'), [id('[CLS]'), id('deployment'), id('##s'), id('[SEP]')]);
  assert.deepEqual(tok.ids(''), [id('[CLS]'), id('[SEP]')]);
});

test('tokenizer: truncation cuts the body and keeps the trailing [SEP]', async () => {
  const tok = await BertTokenizer.load(model.dir, 8);
  const ids = tok.ids('cat '.repeat(10));
  assert.equal(ids.length, 8);
  assert.equal(ids[0], id('[CLS]'));
  assert.equal(ids[7], id('[SEP]'));
  assert.deepEqual(ids.slice(1, 7), Array(6).fill(id('cat')));
  assert.throws(() => new BertTokenizer(undefined as never, {}, 2), RangeError);
  // A huge text is cut before tokenizing, with the same result as tokenizing all of it.
  const full = await BertTokenizer.load(model.dir);
  const huge = 'the cat sat on the mat. '.repeat(50_000);
  const hugeIds = full.ids(huge);
  assert.equal(hugeIds.length, 256);
  // The cut is by characters (128 a token of maxLength): a word past it is never tokenized,
  // which only shows when what precedes it is blank.
  assert.deepEqual(full.ids(' '.repeat(256 * 128) + 'cat'), [id('[CLS]'), id('[SEP]')]);
  assert.deepEqual(full.ids(' '.repeat(256 * 128 - 4) + 'cat'), [id('[CLS]'), id('cat'), id('[SEP]')]);
  assert.deepEqual(hugeIds, full.ids('the cat sat on the mat. '.repeat(60)));
});

test('tokenizer: a batch pads to its longest row with [PAD] and a 0/1 attention mask', async () => {
  const tok = await BertTokenizer.load(model.dir);
  const b = tok.batch(['the cat', 'the dog ran home']);
  assert.equal(b.batch, 2);
  assert.equal(b.seq, 6);
  assert.deepEqual(b.lengths, [4, 6]);
  assert.deepEqual([...b.inputIds].map(Number), [id('[CLS]'), id('the'), id('cat'), id('[SEP]'), 0, 0, id('[CLS]'), id('the'), id('dog'), id('ran'), id('home'), id('[SEP]')]);
  assert.deepEqual([...b.attentionMask].map(Number), [1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1]);
  assert.deepEqual([...b.tokenTypeIds].map(Number), Array(12).fill(0));
  assert.ok(b.inputIds instanceof BigInt64Array && b.attentionMask instanceof BigInt64Array);
});

test('model id is onnx:<folder>:<first 12 hex of sha256(model.onnx)>', async () => {
  const sha = createHash('sha256')
    .update(await readFile(join(model.dir, 'model.onnx')))
    .digest('hex');
  assert.equal(encoder.info.modelId, `onnx:${basename(model.dir)}:${sha.slice(0, 12)}`);
  assert.equal(await onnxModelId(model.dir), encoder.info.modelId);
  assert.deepEqual({ ...encoder.info, modelId: '' }, { space: 'E1', modelId: '', dim: 32, provider: 'onnx' });
});

test('embeddings are 32-d, unit length and deterministic across sessions', async () => {
  const texts = ['memory graph search', 'the cat sat on the mat', ''];
  const a = await encoder.encode(texts);
  const other = await OnnxEncoder.load(model.dir);
  try {
    const b = await other.encode(texts);
    for (let i = 0; i < texts.length; i++) {
      assert.equal(a[i]!.length, model.dim);
      assert.ok(Math.abs(norm(a[i]!) - 1) < 1e-5);
      assert.deepEqual(a[i], b[i]);
    }
  } finally {
    await other.close();
  }
});

test('a batch gives the same vectors as one text at a time', async () => {
  const texts = ['the cat', 'kubernetes deployment cluster for the new service', 'dog', 'a very long sentence about database memory and graph search and vectors', 'x'];
  const batched = await encoder.encode(texts);
  for (let i = 0; i < texts.length; i++) {
    const [single] = await encoder.encode([texts[i]!]);
    assert.ok(close(batched[i]!, single!), `text ${i}`);
  }
});

test('mean pooling is masked: padding changes nothing, while unmasked padding would', async () => {
  const tok = encoder.tokenizer;
  const row = tok.ids('the cat sat on the mat');
  const [plain] = await encoder.run(tok.pad([row]));
  const padded = tok.pad([row, [...row, ...Array(10).fill(id('dog'))]]);
  const [masked] = await encoder.run(padded);
  assert.ok(close(plain!, masked!, 1e-6));
  // Same ids and padding, but the mask claims the [PAD] positions are tokens: the result moves,
  // so the padded positions have non-zero outputs and the first check was not vacuous.
  const unmaskedBatch = { ...padded, attentionMask: padded.attentionMask.map(() => 1n) };
  const [unmasked] = await encoder.run(unmaskedBatch);
  assert.ok(cos(plain!, unmasked!) < 0.999, `${cos(plain!, unmasked!)}`);
});

test('texts sharing words are closer than unrelated ones', async () => {
  const [a, b, c] = await encoder.encode(['the cat sat on the mat', 'a cat sat on a mat', 'kubernetes deployment cluster container']);
  assert.ok(cos(a!, b!) > cos(a!, c!) + 0.1, `${cos(a!, b!)} vs ${cos(a!, c!)}`);
});

test('only the inputs the model declares are fed (no token_type_ids), and a [batch, dim] output is used as is', async () => {
  const noTypes = await OnnxEncoder.load((await makeTinyModel(join(root, 'no-types'), { tokenTypeIds: false })).dir);
  const pooled = await OnnxEncoder.load((await makeTinyModel(join(root, 'pooled'), { pooledOutput: true })).dir);
  try {
    const [v] = await noTypes.encode(['the cat']);
    assert.equal(v!.length, 32);
    assert.ok(Math.abs(norm(v!) - 1) < 1e-5);
    // The pooled graph averages without a mask (like some exports): one text has no padding,
    // so it must agree with the sequence model's masked mean.
    const [p] = await pooled.encode(['the cat sat']);
    const [s] = await encoder.encode(['the cat sat']);
    assert.ok(close(p!, s!), 'pooled output equals masked mean for an unpadded row');
  } finally {
    await noTypes.close();
    await pooled.close();
  }
});

test('missing files fail with a message naming the file and CONTEXT_GRAPH_MODEL_DIR', async () => {
  await assert.rejects(OnnxEncoder.load(join(root, 'does-not-exist')), /does not exist.*CONTEXT_GRAPH_MODEL_DIR|CONTEXT_GRAPH_MODEL_DIR.*does not exist/);
  const empty = join(root, 'empty');
  await mkdir(empty);
  await assert.rejects(OnnxEncoder.load(empty), (err: Error) => {
    assert.equal(err.name, 'ModelFilesError');
    assert.match(err.message, /model\.onnx not found/);
    assert.match(err.message, /CONTEXT_GRAPH_MODEL_DIR/);
    return true;
  });
  const noTokenizer = join(root, 'no-tokenizer');
  await mkdir(noTokenizer);
  await writeFile(join(noTokenizer, 'model.onnx'), await readFile(join(model.dir, 'model.onnx')));
  await assert.rejects(OnnxEncoder.load(noTokenizer), /tokenizer\.json not found.*CONTEXT_GRAPH_MODEL_DIR/);
  const broken = join(root, 'broken');
  await makeTinyModel(broken);
  await writeFile(join(broken, 'model.onnx'), 'not a model');
  await assert.rejects(OnnxEncoder.load(broken), /cannot load .*model\.onnx.*onnxruntime/);
});
