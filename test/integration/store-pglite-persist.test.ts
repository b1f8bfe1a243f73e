import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createLogger } from '../../src/log.js';
import { openStore } from '../../src/store/open.js';
import { openPglite } from '../../src/store/pglite.js';
import { seedDataDir } from '../../src/store/pglite-template.js';

const logger = createLogger('silent');
let dir: string | undefined;

after(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('PGlite data survives close and reopen in the same directory', async () => {
  dir = await mkdtemp(join(tmpdir(), 'cg-persist-'));
  const first = await openStore({ dataDir: dir }, logger);
  assert.equal(first.driver, 'pglite');
  assert.ok(existsSync(join(dir, 'pg', 'PG_VERSION')), 'the cluster lives in <dataDir>/pg');
  await first.transaction(async (tx) => {
    await tx.query(`insert into nodes (id, content, tags, metadata, content_hash) values ($1, $2, $3, $4, 'h')`, [
      'persist-1',
      'The archive room key is in the blue drawer.',
      ['keys'],
      { room: 'archive' },
    ]);
  });
  await first.close();

  const second = await openPglite(dir);
  try {
    const rows = await second.query<{ id: string; content: string; tags: string[]; metadata: unknown }>(`select id, content, tags, metadata from nodes where id = 'persist-1'`);
    assert.deepEqual(rows, [{ id: 'persist-1', content: 'The archive room key is in the blue drawer.', tags: ['keys'], metadata: { room: 'archive' } }]);
    const [m] = await second.query<{ n: number }>(`select count(*) as n from schema_migrations`);
    assert.ok(m!.n >= 1, 'the migration ledger persisted too');
  } finally {
    await second.close();
  }
  // openStore on the reopened directory finds nothing to apply.
  const third = await openStore({ dataDir: dir }, logger);
  const [hit] = await third.query<{ n: number }>(`select count(*)::int as n from nodes where content like '%blue drawer%'`);
  assert.equal(hit?.n, 1, 'the rows persisted across reopen and migration');
  await third.close();
});

// A new store starts from initdb's result kept in the user's cache (issue 15: no initdb, and so
// no second Postgres instance, in the server's process); an existing one is never touched.
test('a new data directory is seeded from the initdb template, a used one is left alone', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'cg-seed-'));
  try {
    const pg = join(parent, 'pg');
    assert.equal(await seedDataDir(pg), true);
    assert.ok(existsSync(join(pg, 'PG_VERSION')));
    assert.deepEqual(readdirSync(parent), ['pg'], 'extracted beside it and renamed into place, nothing left over');
    assert.equal(await seedDataDir(pg), false);
    const db = await openPglite(parent);
    try {
      assert.deepEqual(await db.query(`select current_database() as db`), [{ db: 'postgres' }]);
    } finally {
      await db.close();
    }
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
});
