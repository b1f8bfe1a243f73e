import assert from 'node:assert/strict';
import { test } from 'node:test';
import { insertNode } from '../../src/store/nodes-repo.js';
import { asReal, FLOAT4_MAX, FLOAT4_MIN_NORMAL, realArray } from '../../src/store/real.js';
import { useInProcessApp } from '../helpers/in-memory.js';
import { pgliteHarness, postgresHarness } from '../helpers/stores.js';

// Every number column of the schema that is `real` (float4) takes a double from the server. The
// tools accept 0..1 and zod lets 1e-50 through: Postgres refused such a value (22003, it rounds to
// no float4) and the call failed with DB_ERROR. It is written as the nearest float4 instead: 0.

const env = useInProcessApp('real-columns', ['graph', 'curation']);
const call = env.call;
const node = async (id: string) =>
  (
    await env.app.db.query<{ importance: number; confidence: number }>(`select importance::float8 as importance, confidence::float8 as confidence from nodes where id = $1`, [id])
  )[0]!;

test('importance and confidence too small for float4 are stored as 0 by store, update and boost_importance', async () => {
  const stored = await call('store', { content: 'The lobby plants are watered on Fridays.', importance: 1e-50, confidence: 1e-300 });
  assert.deepEqual(await node(stored.id), { importance: 0, confidence: 0 });

  const other = await call('store', { content: 'The atrium fountain is drained in winter.', importance: 0.5 });
  await call('update', { id: other.id, importance: 1e-46, confidence: 2e-40 });
  assert.deepEqual(await node(other.id), { importance: 0, confidence: 0 }, 'a subnormal float4 is flushed to 0 too');

  const boosted = await call('boost_importance', { node_id: stored.id, delta: 1e-60, rationale: 'a nudge below float4 precision' });
  assert.equal(boosted.importance, 0);
  assert.equal((await node(stored.id)).importance, 0);
});

test('an edge weight and confidence too small for float4 are stored as 0 by relate', async () => {
  const out = await call('relate', { subject: 'boiler room', predicate: 'is_next_to', object: 'chiller room', weight: 1e-50, confidence: 1e-45 });
  const [edge] = await env.app.db.query<{ weight: number; confidence: number }>(`select weight::float8 as weight, confidence::float8 as confidence from edges where id = $1`, [
    out.triples[0].id,
  ]);
  assert.deepEqual(edge, { weight: 0, confidence: 0 });
});

test('asReal: the nearest float4 for what fits, an error naming the column for what never should be stored', () => {
  assert.equal(asReal(0.5, 'x'), 0.5);
  assert.equal(asReal(-1e-50, 'x'), 0);
  assert.equal(asReal(FLOAT4_MIN_NORMAL / 2, 'x'), 0);
  assert.equal(asReal(FLOAT4_MIN_NORMAL, 'x'), FLOAT4_MIN_NORMAL);
  assert.equal(asReal(FLOAT4_MAX, 'x'), FLOAT4_MAX);
  for (const bad of [NaN, Infinity, -Infinity, 3.5e38, -1e39])
    assert.throws(
      () => asReal(bad, 'nodes.importance'),
      (err: Error) => err.name === 'StoreError' && err.message.startsWith('nodes.importance: '),
    );
  assert.deepEqual(realArray([1e-50, 0.25], 'fingerprints.surprise'), [0, 0.25]);
  assert.throws(() => realArray([0.1, NaN], 'fingerprints.surprise'), /fingerprints\.surprise/);
});

for (const [driver, harness] of [
  ['pglite', pgliteHarness],
  ['postgres', postgresHarness],
] as const) {
  test(`${driver}: the repositories write 1e-50 as 0 and refuse NaN before Postgres stores it`, { skip: driver === 'postgres' && !process.env.DATABASE_URL }, async () => {
    const h = await harness();
    const db = h.db;
    try {
      const node = (id: string, importance: number) => ({
        id,
        kind: 'memory',
        project_id: 'p',
        memory_type: 'semantic',
        topic: null,
        content: id,
        tags: [],
        source_uri: null,
        importance,
        confidence: 1e-46,
        metadata: {},
        content_hash: id,
        valid_from: null,
        valid_to: null,
      });
      const row = await insertNode(db, node('tiny', 1e-50));
      assert.deepEqual([row.importance, row.confidence], [0, 0]);
      await assert.rejects(insertNode(db, node('nan', NaN)), /nodes\.importance: NaN/);
      const [n] = await db.query<{ n: number }>(`select count(*)::int as n from nodes where id = 'nan'`);
      assert.equal(n!.n, 0, 'NaN was never stored');
    } finally {
      await h.cleanup();
    }
  });
}
