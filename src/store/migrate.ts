import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../log.js';
import { packageRoot } from '../paths.js';
import type { Db, Queryable } from './db.js';

/** What migrate() needs beyond the contract: multi-statement SQL inside a transaction. Both drivers' tx handles have it. */
export interface ExecQueryable extends Queryable {
  exec(sql: string): Promise<void>;
}

/**
 * Key of the transaction-scoped advisory lock every migrating process takes, so N front ends and
 * M workers starting together apply each file once. 'cg' in the high bytes, next to the other
 * context-graph keys (embeddings-repo uses 0x63670001). Never change it: old and new builds
 * starting side by side must contend on the same key.
 */
export const MIGRATION_LOCK_KEY = 0x63670000;

/** The oldest server supported: CI runs Postgres 15 and PGlite embeds 18; older majors are not tested. */
export const MIN_SERVER_VERSION_NUM = 140000;

export type MigrationErrorCode = 'UNSUPPORTED_SERVER' | 'CHECKSUM_MISMATCH' | 'BAD_MIGRATION_FILES';

export class MigrationError extends Error {
  override name = 'MigrationError';
  constructor(
    readonly code: MigrationErrorCode,
    message: string,
  ) {
    super(message);
  }
}

interface MigrationFile {
  version: number;
  name: string;
  file: string;
  sql: string;
  checksum: string;
}

const FILE_PATTERN = /^(\d{3})_([a-z0-9_]+)\.sql$/;

/**
 * Applies the pending `db/NNN_name.sql` files in order, each in its own transaction under
 * MIGRATION_LOCK_KEY, and records them in `schema_migrations`. Migrations are append-only: a
 * recorded file whose text changed is refused rather than silently diverging between installs.
 * `dir` is for tests; the default is the package's db/ folder.
 */
export async function migrate(db: Db, logger: Logger, opts: { dir?: string } = {}): Promise<{ applied: string[] }> {
  const files = await loadMigrations(opts.dir ?? join(packageRoot(), 'db'));

  const [server] = await db.query<{ num: number; version: string }>(`select current_setting('server_version_num')::int as num, current_setting('server_version') as version`);
  assertSupportedServer(server?.num ?? 0, server?.version ?? 'unknown');

  // Under the lock too: two sessions racing `create table if not exists` can both pass the
  // existence check and one then fails on the catalog's unique index.
  await db.transaction(async (tx) => {
    await tx.query(`select pg_advisory_xact_lock($1)`, [MIGRATION_LOCK_KEY]);
    await tx.query(
      `create table if not exists schema_migrations (
         version integer primary key,
         name text not null,
         checksum text not null,
         applied_at timestamptz not null default now()
       )`,
    );
  });

  const recorded = await db.query<{ version: number; name: string; checksum: string }>(`select version, name, checksum from schema_migrations order by version`);
  const byVersion = new Map(files.map((f) => [f.version, f]));
  for (const row of recorded) {
    const file = byVersion.get(row.version);
    if (!file) {
      // A newer build migrated this database. Its additions are append-only, so an older build
      // can usually keep running; say so instead of refusing.
      logger.warn({ version: row.version, name: row.name }, 'database has a migration this build does not know; was it migrated by a newer version?');
      continue;
    }
    checkUnchanged(file, row.checksum);
  }

  const done = new Set(recorded.map((r) => r.version));
  const applied: string[] = [];
  for (const file of files) {
    if (done.has(file.version)) continue;
    const didApply = await db.transaction(async (tx) => {
      await tx.query(`select pg_advisory_xact_lock($1)`, [MIGRATION_LOCK_KEY]);
      // Another process may have applied it while we waited for the lock.
      const [row] = await tx.query<{ checksum: string }>(`select checksum from schema_migrations where version = $1`, [file.version]);
      if (row) {
        checkUnchanged(file, row.checksum);
        return false;
      }
      await asExec(tx).exec(file.sql);
      await tx.query(`insert into schema_migrations (version, name, checksum) values ($1, $2, $3)`, [file.version, file.name, file.checksum]);
      return true;
    });
    if (didApply) {
      applied.push(file.file);
      logger.info({ migration: file.file }, 'migration applied');
    }
  }
  return { applied };
}

/** Throws MigrationError UNSUPPORTED_SERVER below MIN_SERVER_VERSION_NUM (`server_version_num`, e.g. 150018). */
export function assertSupportedServer(versionNum: number, version: string = String(versionNum)): void {
  if (!Number.isFinite(versionNum) || versionNum < MIN_SERVER_VERSION_NUM) {
    throw new MigrationError(
      'UNSUPPORTED_SERVER',
      `PostgreSQL ${version} is too old: context-graph needs PostgreSQL ${MIN_SERVER_VERSION_NUM / 10000} or newer. ` +
        'Upgrade the server, or unset DATABASE_URL to use the embedded store.',
    );
  }
}

function checkUnchanged(file: MigrationFile, recordedChecksum: string): void {
  if (file.checksum === recordedChecksum) return;
  throw new MigrationError(
    'CHECKSUM_MISMATCH',
    `migration ${file.file} was edited after it was applied to this database (checksum ${recordedChecksum.slice(0, 12)} recorded, ` +
      `${file.checksum.slice(0, 12)} on disk). Migrations are append-only: restore the original file and put the change in a new numbered file.`,
  );
}

async function loadMigrations(dir: string): Promise<MigrationFile[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.sql')).sort();
  const files: MigrationFile[] = [];
  for (const file of names) {
    const m = FILE_PATTERN.exec(file);
    if (!m) throw new MigrationError('BAD_MIGRATION_FILES', `${join(dir, file)}: migration files are named NNN_lower_snake.sql`);
    const version = Number(m[1]);
    const previous = files[files.length - 1];
    if (previous?.version === version) {
      throw new MigrationError('BAD_MIGRATION_FILES', `${previous.file} and ${file} share version ${m[1]}: renumber the newer one`);
    }
    // CRLF-normalised so a Windows checkout does not look like an edited migration.
    const sql = (await readFile(join(dir, file), 'utf8')).replace(/\r\n/g, '\n');
    files.push({ version, name: m[2]!, file, sql, checksum: createHash('sha256').update(sql).digest('hex') });
  }
  return files;
}

function asExec(tx: Queryable): ExecQueryable {
  if (typeof (tx as Partial<ExecQueryable>).exec !== 'function') {
    throw new Error('migrate() needs a transaction handle with exec(); use openPglite or openPostgres');
  }
  return tx as ExecQueryable;
}
