import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fnv1a32 } from '../../src/embed/hashing.js';
import { createKeywordEncoder, keywordEmbed, keywordTerms, KEYWORD_MODEL_ID, packTerms, stem, termCounts, unpackTerms } from '../../src/embed/keyword.js';
import { fromBytes, toBytes } from '../../src/store/vector-bytes.js';

test('stemming: inflections of one word meet', () => {
  const pairs: Array<[string, string]> = [
    ['invoices', 'invoice'],
    ['invoiced', 'invoice'],
    ['invoicing', 'invoice'],
    ['deploying', 'deploy'],
    ['deployed', 'deploy'],
    ['deploys', 'deploy'],
    ['retries', 'retry'],
    ['retrying', 'retry'],
    ['running', 'run'],
    ['runs', 'run'],
    ['classes', 'class'],
    ['patches', 'patch'],
    ['boxes', 'box'],
    ['queries', 'query'],
    ['releases', 'release'],
  ];
  for (const [a, b] of pairs) assert.equal(stem(a), stem(b), `${a} / ${b}`);
  // Not over-eager: short words, -ss/-us/-is, vowel-less stems and non-ASCII words are kept.
  assert.equal(stem('gas'), 'gas');
  assert.equal(stem('class'), 'class');
  assert.equal(stem('status'), 'status');
  assert.equal(stem('analysis'), 'analysis');
  assert.equal(stem('string'), 'string');
  assert.equal(stem('bed'), 'bed');
  assert.equal(stem('need'), 'need');
  assert.equal(stem('k8s'), 'k8s');
  assert.equal(stem('größe'), 'größe');
  assert.notEqual(stem('deploy'), stem('deployment'));
});

test('terms: lower case, Unicode letters and digits, stop words dropped', () => {
  assert.deepEqual(keywordTerms('How do we DEPLOY the Payments-Service, v2?'), ['deploy', 'payment', 'servic', 'v2']);
  assert.deepEqual(keywordTerms('Ärger über 東京 snake_case'), ['ärger', 'über', '東京', 'snak', 'cas']);
  assert.deepEqual(keywordTerms('the of and to'), []);
  assert.deepEqual(keywordTerms(''), []);
  // NFKC: full-width letters are ordinary letters.
  assert.deepEqual(keywordTerms('ＡＢＣ'), ['abc']);
});

test('term counts are hashed with fnv1a32 and deterministic', () => {
  const c = termCounts('cache caches cached, the cache');
  assert.deepEqual([...c.entries()], [[fnv1a32('cach'), 4]]);
  assert.deepEqual(keywordEmbed('Rollback the release'), keywordEmbed('Rollback the release'));
  assert.deepEqual(keywordEmbed('rolled back releases'), keywordEmbed('Releases rolled back'));
});

test('packing: sorted interleaved (u32 id, f32 tf) pairs that survive bytea and structured clone', () => {
  // Ids chosen to be NaN bit patterns when read as float32: they must come back bit-exact.
  const terms = new Map<number, number>([
    [0x7fc00001, 2],
    [3, 1],
    [0xffffffff, 5],
    [0x7f800001, 0.5],
  ]);
  const v = packTerms(terms);
  assert.equal(v.length, 8);
  const u = new Uint32Array(v.buffer);
  assert.deepEqual([u[0], u[2], u[4], u[6]], [3, 0x7f800001, 0x7fc00001, 0xffffffff]);
  const expect = { ids: Uint32Array.from([3, 0x7f800001, 0x7fc00001, 0xffffffff]), weights: Float32Array.from([1, 0.5, 2, 5]) };
  assert.deepEqual(unpackTerms(v), expect);
  assert.deepEqual(unpackTerms(fromBytes(toBytes(v), v.length)), expect);
  assert.deepEqual(unpackTerms(structuredClone(v)), expect);
  // Copied into a bigger batch buffer at an offset, as the index host does.
  const flat = new Float32Array(12);
  flat.set(v, 4);
  assert.deepEqual(unpackTerms(flat.subarray(4)), expect);
  assert.deepEqual(unpackTerms(packTerms(new Map())), { ids: new Uint32Array(0), weights: new Float32Array(0) });
  assert.throws(() => unpackTerms(new Float32Array(3)), /even length/);
});

test('encoder: E13, model-free, variable length (dim 0)', () => {
  const enc = createKeywordEncoder();
  assert.deepEqual(enc.info, { space: 'E13', modelId: KEYWORD_MODEL_ID, dim: 0, provider: 'model-free' });
  const [a, b] = enc.encode(['blue green deploys', 'the']) as Float32Array[];
  assert.equal(a!.length, 6);
  assert.equal(b!.length, 0);
  const { ids, weights } = unpackTerms(a!);
  assert.deepEqual([...ids].sort(), ['blu', 'green', 'deploy'].map((t) => fnv1a32(t)).sort());
  assert.deepEqual([...weights], [1, 1, 1]);
});
