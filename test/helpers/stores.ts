import { randomBytes } from 'node:crypto';
import { createLogger } from '../../src/log.js';
import type { Db } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { openPglite } from '../../src/store/pglite.js';
import { openPostgres } from '../../src/store/postgres.js';

/** A migrated store for one test suite, and how to throw it away. */
export interface Harness {
  db: Db;
  cleanup(): Promise<void>;
}

const logger = createLogger('silent');

export async function pgliteHarness(): Promise<Harness> {
  const db = await openPglite('memory');
  await migrate(db, logger);
  return { db, cleanup: () => db.close() };
}

/** Postgres in a schema of its own (dropped afterwards), so parallel suites never meet. */
export async function postgresHarness(): Promise<Harness> {
  const url = process.env.DATABASE_URL!;
  const schema = `cg_test_${randomBytes(6).toString('hex')}`;
  const db = await openPostgres(url, { schema });
  await migrate(db, logger);
  return {
    db,
    async cleanup() {
      await db.close();
      const admin = await openPostgres(url, { max: 1 });
      await admin.exec(`drop schema if exists "${schema}" cascade`);
      await admin.close();
    },
  };
}
