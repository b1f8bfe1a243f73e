import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { HASH_DIM, HASH_MODEL_ID } from '../../src/embed/hashing.js';
import { defineSpace, checkEncoder } from '../../src/embed/spaces/define.js';
import { describeSpaces, implementedSpaces, isSpaceId, LEXICAL_SPACE, signalWeights, spaceById, SPACES } from '../../src/embed/spaces/registry.js';

test('the registry lists the 13 spaces of seed 001 in order, each once', () => {
  assert.deepEqual(
    SPACES.map((s) => s.id),
    ['E1', 'E2', 'E3', 'E4', 'E5', 'E6', 'E7', 'E8', 'E9', 'E10', 'E11', 'E12', 'E13'],
  );
  assert.equal(new Set(SPACES.map((s) => s.name)).size, 13);
  for (const s of SPACES) {
    assert.ok(s.purpose.length > 10, s.id);
    assert.equal(spaceById(s.id), s);
    assert.ok(isSpaceId(s.id));
    // Implemented exactly when there is an encoder to build.
    assert.equal(s.status === 'implemented', typeof s.encoder === 'function', s.id);
  }
  assert.equal(isSpaceId('E14'), false);
  assert.throws(() => spaceById('E14' as never), /unknown embedding space "E14"/);
});

test('implemented: all 13 spaces, E6, E7 and E11 sparse beside E13 (the lexical signal), E12 multi', () => {
  assert.deepEqual(
    implementedSpaces().map((s) => [s.id, s.name, s.index]),
    [
      ['E1', 'semantic', 'dense'],
      ['E2', 'temporal-recent', 'dense'],
      ['E3', 'temporal-periodic', 'dense'],
      ['E4', 'temporal-positional', 'dense'],
      ['E5', 'causal', 'dense'],
      ['E6', 'sparse', 'sparse'],
      ['E7', 'code', 'sparse'],
      ['E8', 'graph', 'dense'],
      ['E9', 'hdc', 'dense'],
      ['E10', 'paraphrase', 'dense'],
      ['E11', 'entity', 'sparse'],
      ['E12', 'late-interaction', 'multi'],
      ['E13', 'keyword', 'sparse'],
    ],
  );
  assert.equal(LEXICAL_SPACE, 'E13');
  // Search fuses by these (a weighted score sum): BM25 and GloVe E1 equal, E6 expansion and the E12
  // MaxSim rerank at what they earned on LoCoMo dev, E9 off until it earns a place.
  assert.deepEqual(signalWeights(), { E1: 1, E2: 0, E3: 0, E4: 0, E5: 0, E6: 0.5, E7: 0, E8: 0, E9: 0, E10: 0, E11: 0, E12: 0.5, lexical: 1 });
});

test('no space is planned any more; E12 is the multi-vector (late-interaction) kind', () => {
  assert.deepEqual(
    SPACES.filter((s) => s.status === 'planned').map((s) => s.id),
    [],
  );
  assert.equal(spaceById('E12').index, 'multi');
  assert.equal(spaceById('E6').index, 'sparse');
  assert.equal(spaceById('E8').index, 'dense');
});

test('describeSpaces: all 13 for health and docs, with the encoder where one is enabled', () => {
  const rows = describeSpaces([{ space: 'E1', modelId: HASH_MODEL_ID, dim: HASH_DIM, provider: 'model-free' }]);
  assert.equal(rows.length, 13);
  assert.deepEqual(rows[0], {
    id: 'E1',
    name: 'semantic',
    purpose: spaceById('E1').purpose,
    status: 'implemented',
    index: 'dense',
    weight: 1,
    signal: 'E1',
    encoder: { model_id: HASH_MODEL_ID, dim: HASH_DIM, provider: 'model-free' },
  });
  assert.equal(rows[12]!.signal, 'lexical');
  assert.equal(rows[12]!.encoder, null);
  assert.equal(rows[4]!.encoder, null);
});

test('defineSpace refuses what would break the worker, search or docs', () => {
  const base = { id: 'E5', name: 'causal', purpose: 'cause and effect', index: 'dense' } as const;
  const encoder = () => ({ info: { space: 'E5' as const, modelId: 'm', dim: 4, provider: 'model-free' as const }, encode: () => [] });
  assert.equal(defineSpace({ ...base, status: 'implemented', weight: 0.3, encoder }).signal, 'E5');
  assert.throws(() => defineSpace({ ...base, id: 'E14' as never, status: 'planned' }), /E1 … E13/);
  assert.throws(() => defineSpace({ ...base, name: 'Causal Space', status: 'planned' }), /lower-case/);
  assert.throws(() => defineSpace({ ...base, status: 'implemented', weight: -1, encoder }), /weight/);
  assert.throws(() => defineSpace({ ...base, status: 'implemented', weight: Number.NaN, encoder }), /weight/);
  assert.throws(() => defineSpace({ ...base, status: 'implemented', weight: 1, encoder: undefined as never }), /needs an encoder/);
  assert.throws(() => defineSpace({ ...base, status: 'planned', encoder: encoder as never }), /has no encoder/);
});

test('checkEncoder: the encoder must report its space and the shape its index kind reads', async () => {
  const e1 = spaceById('E1');
  const hashing = await e1.encoder!({ e1: { provider: 'model-free' } });
  checkEncoder(e1, hashing);
  assert.throws(() => checkEncoder(spaceById('E9'), hashing), /reports space E1/);
  const sparseLike = { ...hashing, info: { ...hashing.info, dim: 0 } };
  assert.throws(() => checkEncoder(e1, sparseLike), /indexed as dense but its encoder reports dim 0/);
  const keyword = await spaceById('E13').encoder!({ e1: { provider: 'model-free' } });
  checkEncoder(spaceById('E13'), keyword);
});

test('one file per space, named <id>-<name>.ts, each listed once in the registry', () => {
  const dir = join(packageRoot(), 'src', 'embed', 'spaces');
  const files = readdirSync(dir)
    .filter((f) => /^e\d+-.*\.ts$/.test(f))
    .sort();
  assert.deepEqual(files, SPACES.map((s) => `${s.id.toLowerCase()}-${s.name}.ts`).sort());
  const registry = readFileSync(join(dir, 'registry.ts'), 'utf8');
  for (const f of files) assert.equal(registry.split(`from './${f.replace(/\.ts$/, '.js')}'`).length - 1, 1, f);
});
