import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { PGlite } from '@electric-sql/pglite';
import { openPglite } from '../../src/store/pglite.js';
import { PreparedStatements } from '../../src/store/pglite-prepared.js';
import { isStoreError } from '../../src/store/errors.js';
import type { Db } from '../../src/store/db.js';
import type { ExecQueryable } from '../../src/store/migrate.js';

/**
 * PGlite statements are sent as named prepared statements (parsed and planned once, not on every
 * call): every answer, error and transaction must be what PGlite's own unnamed `query` gives.
 */
let named: Db;
let unnamed: Db;

before(async () => {
  named = await openPglite('memory');
  process.env.CONTEXT_GRAPH_PGLITE_PREPARED = 'off';
  try {
    unnamed = await openPglite('memory');
  } finally {
    delete process.env.CONTEXT_GRAPH_PGLITE_PREPARED;
  }
  for (const db of [named, unnamed]) {
    await db.exec(`create table t (id bigint primary key, name text unique, at timestamptz, tags text[], doc jsonb, bytes bytea, score numeric, ok boolean)`);
  }
});

after(async () => {
  await named?.close();
  await unnamed?.close();
});

const preparedCount = async (db: Db) => Number((await db.query<{ n: number }>(`select count(*)::int as n from pg_prepared_statements where name like 'cg\\_%'`))[0]!.n);

test('answers match the unnamed path for every column type, with and without parameters, run after run', async () => {
  const rows = [
    [1, 'one', new Date('2024-05-01T10:00:00Z'), ['a', 'b'], { k: [1, 2] }, new Uint8Array([0, 1, 254, 255]), 1.5, true],
    [2, 'two', null, [], null, null, null, false],
  ];
  for (const db of [named, unnamed]) {
    for (const r of rows) await db.query('insert into t values ($1, $2, $3, $4, $5, $6, $7, $8)', r);
  }
  const read = (db: Db) => db.query('select * from t where id = any($1::bigint[]) order by id', [[1, 2]]);
  const expected = await read(unnamed);
  // The first runs use custom plans, later ones the cached generic plan: all must agree.
  for (let i = 0; i < 8; i++) assert.deepEqual(await read(named), expected);
  assert.deepEqual(await named.query('select 1 as one'), await unnamed.query('select 1 as one'));
  assert.deepEqual(await named.query('update t set ok = $1 where id = $2', [true, 99]), []);
  // One statement per distinct text: the insert, the read, select 1, the update and this count.
  assert.equal(await preparedCount(named), 5);
  assert.equal(await preparedCount(unnamed), 0);
});

test('errors are the same stable errors, and the connection keeps working after them', async () => {
  await named.query(`insert into t (id, name) values (10, 'ten')`);
  const conflict = await named.query(`insert into t (id, name) values ($1, 'ten')`, [11]).catch((e: unknown) => e);
  assert.ok(isStoreError(conflict) && conflict.code === 'CONFLICT', String(conflict));
  const syntax = await named.query('selec 1').catch((e: unknown) => e);
  assert.ok(isStoreError(syntax) && syntax.code === 'DB_ERROR' && syntax.message.includes('42601'), String(syntax));
  const badParam = await named.query('select $1::int as n', ['not a number']).catch((e: unknown) => e);
  assert.ok(isStoreError(badParam) && badParam.code === 'DB_ERROR', String(badParam));
  assert.deepEqual(await named.query('select $1::int as n', [7]), [{ n: 7 }]);
});

test('a transaction of prepared statements commits or rolls back as a whole', async () => {
  await named.transaction(async (tx) => {
    await tx.query(`insert into t (id, name) values ($1, $2)`, [20, 'twenty']);
    await tx.query(`insert into t (id, name) values ($1, $2)`, [21, 'twenty-one']);
  });
  const failed = await named
    .transaction(async (tx) => {
      await tx.query(`insert into t (id, name) values ($1, $2)`, [22, 'twenty-two']);
      await tx.query(`insert into t (id, name) values ($1, $2)`, [23, 'twenty']);
    })
    .catch((e: unknown) => e);
  assert.ok(isStoreError(failed) && failed.code === 'CONFLICT', String(failed));
  const ids = (await named.query<{ id: number }>('select id from t where id between $1 and $2 order by id', [20, 29])).map((r) => r.id);
  assert.deepEqual(ids, [20, 21]);
});

test('a schema change through exec drops the statements, so a cached `select *` sees the new column', async () => {
  const read = () => named.query('select * from t where id = $1', [1]);
  for (let i = 0; i < 6; i++) await read();
  await named.exec('alter table t add column extra text');
  const [row] = await read();
  assert.ok(row && 'extra' in row, 'the new column is in the answer');
  await named.transaction(async (tx) => {
    await tx.query('select * from t where id = $1', [1]);
    // Migrations run DDL this way (the handle's exec is not part of the general Queryable type).
    await (tx as ExecQueryable).exec('alter table t drop column extra');
  });
  const [again] = await read();
  assert.ok(again && !('extra' in again), 'the dropped column is gone from the answer');
});

test('notifications sent by a prepared statement reach listeners', async () => {
  const heard: string[] = [];
  const stop = await named.listen('cg_prepared_test', (p) => heard.push(p));
  await named.query(`select pg_notify('cg_prepared_test', $1)`, ['hello']);
  await named.transaction(async (tx) => {
    await tx.query(`select pg_notify('cg_prepared_test', $1)`, ['in a transaction']);
  });
  for (let i = 0; i < 50 && heard.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
  await stop();
  assert.deepEqual(heard, ['hello', 'in a transaction']);
});

test('at most `max` statements stay prepared; an evicted one is prepared again when used', async () => {
  const pg = await PGlite.create();
  try {
    const statements = new PreparedStatements(pg, 2);
    const texts = ['select $1::int + 1 as n', 'select $1::int + 2 as n', 'select $1::int + 3 as n'];
    for (const [i, text] of texts.entries()) assert.deepEqual(await statements.query(text, [10]), [{ n: 11 + i }]);
    assert.deepEqual(await statements.query(texts[0]!, [10]), [{ n: 11 }]);
    const live = (await pg.query<{ n: number }>(`select count(*)::int as n from pg_prepared_statements`)).rows[0]!.n;
    assert.equal(live, 2);
  } finally {
    await pg.close();
  }
});

test('a schema change that bypasses exec costs one failed statement at most, never a stuck one', async () => {
  await named.exec('create table s (id int primary key, a text)');
  await named.query(`insert into s values (1, 'x')`);
  const read = () => named.query('select * from s where id = $1', [1]);
  assert.deepEqual(await read(), [{ id: 1, a: 'x' }]);
  // DDL through query() does not drop the statements (exec does); outside a transaction the read is retried once.
  await named.query('alter table s add column b text');
  assert.deepEqual(await read(), [{ id: 1, a: 'x', b: null }]);
});

test('a column retyped through query() leaves no statement that fails every later call', async () => {
  await named.exec('create table r (id int primary key, c int)');
  const insert = (id: number, c: unknown) => named.query('insert into r (id, c) values ($1, $2)', [id, c]);
  await insert(1, 5);
  // The cached insert fixed $2 as int4; once c is jsonb its plan fails with 42804 (the unnamed path adapts).
  await named.query('alter table r alter column c type jsonb using to_jsonb(c)');
  await insert(2, 7);
  await insert(3, { k: 'v' });
  assert.deepEqual(await named.query('select id, c from r order by id'), [
    { id: 1, c: 5 },
    { id: 2, c: 7 },
    { id: 3, c: { k: 'v' } },
  ]);
  // Inside a transaction the statement cannot be run again, but it is dropped: the next one works.
  await named.query(`alter table r alter column c type int using case when jsonb_typeof(c) = 'number' then c::int else 0 end`);
  const insertInTx = (id: number, c: unknown) => named.transaction((tx) => tx.query('insert into r (id, c) values ($1, $2)', [id, c]));
  // The cached insert binds $2 as jsonb: 8 binds, and its plan fails on the int column (42804).
  await assert.rejects(insertInTx(4, 8));
  await insertInTx(4, 9);
  assert.deepEqual(await named.query('select c from r order by id'), [{ c: 5 }, { c: 7 }, { c: 0 }, { c: 9 }]);
});

test('a statement the server no longer has is prepared again, not failed forever', async () => {
  const sum = 'select $1::int + 1 as n';
  assert.deepEqual(await named.query(sum, [41]), [{ n: 42 }]);
  // Deallocated behind the cache's back (what `deallocate all` racing a waiting call did); the
  // statement doing it is dropped too, so the second one is itself a statement the server lost.
  await named.query('deallocate all');
  assert.deepEqual(await named.query(sum, [41]), [{ n: 42 }]);
  await named.query('deallocate all');
  // Inside a transaction the lost statement fails once (the transaction cannot run it again); the next one works.
  const inTx = () => named.transaction((tx) => tx.query(sum, [41]));
  await assert.rejects(inTx());
  assert.deepEqual(await inTx(), [{ n: 42 }]);
});
