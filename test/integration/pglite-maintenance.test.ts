import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../src/log.js';
import { ANALYZE_BASE_ROWS, keepTablesMaintained, type TableMaintenance, VACUUM_BASE_ROWS } from '../../src/store/pglite-maintenance.js';
import { pgliteHarness, type Harness } from '../helpers/stores.js';

/**
 * PGlite runs no autovacuum: a store analyzed while empty kept no column statistics, the planner
 * took `deleted_at is null` to keep 0.5% of a table, and a dream's edge query over 169 memories
 * took ~3 s (nested loops over `nodes` × `nodes` × `edges`), and a table whose rows are deleted
 * grew for ever. After announced writes (or a nudge) the store analyzes the tables that doubled
 * and vacuums those with many dead rows, as autovacuum would.
 */
let h: Harness;
let maintenance: TableMaintenance;
const CHANNEL = 'stats_test_tx';

before(async () => {
  h = await pgliteHarness();
  await h.db.query('create table grown (id int primary key, deleted_at timestamptz)');
  await h.db.query('create table witness (id int primary key)');
  await h.db.query('create table churn (id int primary key, body text)');
  maintenance = await keepTablesMaintained(h.db, { channel: CHANNEL, logger: createLogger('silent'), checkEveryMs: 20 });
});

after(async () => {
  await maintenance?.close();
  await h?.cleanup();
});

const reltuples = async (table: string) => (await h.db.query<{ n: number }>(`select reltuples::int as n from pg_class where relname = $1`, [table]))[0]!.n;
const lastAnalyze = async (table: string) =>
  (await h.db.query<{ at: string | null }>(`select last_analyze::text as at from pg_stat_user_tables where relname = $1`, [table]))[0]!.at;
const announce = () => h.db.query(`select pg_notify($1, '1')`, [CHANNEL]);

async function until(what: string, ok: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await ok())) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function estimatedLiveRows(): Promise<number> {
  const [row] = await h.db.query<{ 'QUERY PLAN': string }>('explain select * from grown where deleted_at is null');
  return Number(/rows=(\d+)/.exec(row!['QUERY PLAN'])![1]);
}

test('a table that grew past the threshold is analyzed after the next announced write; one that grew less is not', async () => {
  await until('the analyze at start', async () => (await lastAnalyze('grown')) !== null);
  await h.db.query('insert into grown select i, null from generate_series(1, 300) i');
  assert.ok((await estimatedLiveRows()) < 10, 'without statistics the planner guesses a handful of live rows');
  await announce();
  await until('grown analyzed', async () => (await reltuples('grown')) === 300);
  assert.ok((await estimatedLiveRows()) >= 290, 'the planner knows the live rows');

  // Fewer modifications than the base plus the rows it holds: left alone, while a table past it in the same check is analyzed.
  const analyzedAt = await lastAnalyze('grown');
  await h.db.query('insert into grown select i, null from generate_series(301, 400) i');
  await h.db.query(`insert into witness select i from generate_series(1, ${ANALYZE_BASE_ROWS}) i`);
  await announce();
  await until('witness analyzed', async () => (await reltuples('witness')) === ANALYZE_BASE_ROWS);
  assert.equal(await lastAnalyze('grown'), analyzedAt);
  assert.equal(await reltuples('grown'), 300);
});

const tableBytes = async (table: string) => (await h.db.query<{ n: number }>(`select pg_relation_size($1)::int as n`, [table]))[0]!.n;
const lastVacuum = async (table: string) => (await h.db.query<{ at: string | null }>(`select last_vacuum::text as at from pg_stat_user_tables where relname = $1`, [table]))[0]!.at;

test('a table whose deleted rows pass the threshold is vacuumed after a nudge, and rows written after it reuse the space', async () => {
  const fill = (from: number, to: number) => h.db.query(`insert into churn select i, repeat('x', 400) from generate_series(${from}, ${to}) i`);
  await fill(1, 2000);
  await announce();
  await until('churn analyzed', async () => (await reltuples('churn')) === 2000);
  // Fewer dead rows than the base plus a fifth of the table: not vacuumed.
  await h.db.query(`delete from churn where id <= ${VACUUM_BASE_ROWS}`);
  maintenance.nudge();
  await until('the dead rows counted', async () => (await h.db.query<{ n: number }>(`select n_dead_tup::int as n from pg_stat_user_tables where relname = 'churn'`))[0]!.n > 0);
  await new Promise((r) => setTimeout(r, 100));
  maintenance.nudge();
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(await lastVacuum('churn'), null);

  const grown = await tableBytes('churn');
  await h.db.query(`delete from churn where id <= 1000`);
  maintenance.nudge();
  await until('churn vacuumed', async () => (await lastVacuum('churn')) !== null);
  await fill(1, 1000);
  assert.ok((await tableBytes('churn')) <= grown, 'the rows written again went into the space the deleted ones left');
});

test('a restart analyzes only the tables never analyzed: the others keep their statistics and the first calls do not wait', async () => {
  await until('the analyze at start', async () => (await lastAnalyze('grown')) !== null);
  await h.db.query('create table added (id int primary key)');
  await h.db.query('insert into added select i from generate_series(1, 10) i');
  const grownAt = await lastAnalyze('grown');
  const again = await keepTablesMaintained(h.db, { channel: `${CHANNEL}_again`, logger: createLogger('silent'), checkEveryMs: 20 });
  try {
    await until('the new table analyzed', async () => (await reltuples('added')) === 10);
    assert.equal(await lastAnalyze('grown'), grownAt, 'an analyzed table is not analyzed again at start');
  } finally {
    await again.close();
  }
});
