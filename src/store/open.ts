import type { Logger } from '../log.js';
import type { Db } from './db.js';
import { migrate } from './migrate.js';

/**
 * Opens the configured store and brings its schema up to date: Postgres when `databaseUrl` is
 * set, else PGlite in `<dataDir>/pg`. It does not take the data-directory lock; the caller
 * acquires it first, because the lock decides whether this process may open PGlite at all.
 * Each driver is imported only when chosen: an embedded server never loads postgres.js, and a
 * Postgres one never loads PGlite's WebAssembly module (idle footprint, issue 15).
 */
export async function openStore(config: { databaseUrl?: string | undefined; dataDir: string; dependencyDeadlineMs?: number }, logger: Logger): Promise<Db> {
  const db = config.databaseUrl
    ? await (await import('./postgres.js')).openPostgres(config.databaseUrl, config.dependencyDeadlineMs ? { deadlineMs: config.dependencyDeadlineMs } : {})
    : await (await import('./pglite.js')).openPglite(config.dataDir);
  try {
    const { applied } = await migrate(db, logger);
    logger.info({ driver: db.driver, applied }, 'store open');
    return db;
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
}
