import type { Logger } from '../log.js';
import type { Db } from './db.js';
import { migrate } from './migrate.js';
import { openPglite } from './pglite.js';
import { openPostgres } from './postgres.js';

/**
 * Opens the configured store and brings its schema up to date: Postgres when `databaseUrl` is
 * set, else PGlite in `<dataDir>/pg`. It does not take the data-directory lock; the caller
 * acquires it first, because the lock decides whether this process may open PGlite at all.
 */
export async function openStore(config: { databaseUrl?: string | undefined; dataDir: string; dependencyDeadlineMs?: number }, logger: Logger): Promise<Db> {
  const db = config.databaseUrl
    ? await openPostgres(config.databaseUrl, config.dependencyDeadlineMs ? { deadlineMs: config.dependencyDeadlineMs } : {})
    : await openPglite(config.dataDir);
  try {
    const { applied } = await migrate(db, logger);
    logger.info({ driver: db.driver, applied }, 'store open');
    return db;
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
}
