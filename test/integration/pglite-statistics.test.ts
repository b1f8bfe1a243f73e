import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../src/log.js';
import { ANALYZE_BASE_ROWS, keepStatisticsFresh } from '../../src/store/pglite-statistics.js';
import { pgliteHarness, type Harness } from '../helpers/stores.js';

/**
 * PGlite runs no autovacuum: a store analyzed while empty kept no column statistics, the planner
 * took `deleted_at is null` to keep 0.5% of a table, and a dream's edge query over 169 memories
 * took ~3 s (nested loops over `nodes` × `nodes` × `edges`). After announced writes the store
 * analyzes the tables that doubled, as autovacuum would.
 */
let h: Harness;
let stop: () => Promise<void>;
const CHANNEL = 'stats_test_tx';

before(async () => {
  h = await pgliteHarness();
  await h.db.query('create table grown (id int primary key, deleted_at timestamptz)');
  await h.db.query('create table witness (id int primary key)');
  stop = await keepStatisticsFresh(h.db, { channel: CHANNEL, logger: createLogger('silent'), checkEveryMs: 20 });
});

after(async () => {
  await stop?.();
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
