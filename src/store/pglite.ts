import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import v8 from 'node:v8';
import { PGlite, types } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { Db, Queryable, Row } from './db.js';
import { mayNotFitSchema, PreparedStatements } from './pglite-prepared.js';
import { pgliteTemplate, seedDataDir } from './pglite-template.js';
import { settleTransactionError, StoreError, translateDbError } from './errors.js';
import type { ExecQueryable } from './migrate.js';

// PGlite's own defaults give int8 as number-or-bigint and numeric as string; the contract says number.
const parsers = {
  [types.INT8]: (x: string) => Number(x),
  [types.NUMERIC]: (x: string) => Number(x),
  // PGlite's own bytea parser builds the array one parseInt per byte (in the import profile, reading
  // vectors back cost more than computing them); Buffer's hex decoder is native. Copied into a plain
  // Uint8Array, as postgres.ts does, so a Float32Array view can sit on it.
  [types.BYTEA]: (x: string) => new Uint8Array(Buffer.from(x.slice(2), 'hex')),
};

// ... and its bytea serializer writes hex one padStart per byte. A Uint8Array left as it is goes
// to Postgres as a binary parameter, which for bytea is the raw bytes: no encoding at all.
const serializers = {
  [types.BYTEA]: ((x: unknown) => (x instanceof Uint8Array ? x : String(x))) as (x: unknown) => string,
};

interface TxScope {
  open: boolean;
}

/**
 * Embedded Postgres (WASM) in `<dataDir>/pg`, or in memory. One connection: PGlite queues
 * statements and transactions behind one mutex, so a query issued outside a transaction waits
 * for it to end instead of running inside it. The data directory is not locked here; the caller
 * holds `acquireDirLock` first (PGlite would happily open the same directory twice).
 */
export async function openPglite(dataDir: string | 'memory'): Promise<Db> {
  const dir = dataDir === 'memory' ? undefined : join(dataDir, 'pg');
  if (process.env.CONTEXT_GRAPH_PGLITE_TIER_UP !== 'on') baselineWasmOnly();
  const options = { extensions: { pg_trgm }, parsers, serializers, startParams: startParams(dir ? await sharedBuffersMb(dir) : MIN_SHARED_BUFFERS_MB) };
  let pg: PGlite;
  try {
    // A new store starts from initdb's result (pglite-template.ts) rather than running initdb here.
    if (dir) {
      await seedDataDir(dir);
      await mkdir(dir, { recursive: true });
      pg = await PGlite.create(dir, options);
    } else {
      const tar = await pgliteTemplate();
      pg = await PGlite.create({ ...options, ...(tar ? { loadDataDir: new Blob([tar]) } : {}) }).catch((err: unknown) => {
        if (!tar) throw err;
        return PGlite.create(options);
      });
    }
  } catch (err) {
    throw translateDbError(err);
  }
  return new PgliteDb(pg, process.env.CONTEXT_GRAPH_PGLITE_PREPARED === 'off' ? null : new PreparedStatements(pg));
}

/**
 * PGlite's own start parameters (its `defaultStartParams`, 0.5.x) plus buffers sized to the store.
 */
function startParams(sharedBuffersMb: number): string[] {
  return [...PGlite.defaultStartParams, ...[`shared_buffers=${sharedBuffersMb}MB`, 'wal_buffers=1MB'].flatMap((s) => ['-c', s])];
}

/**
 * Shared buffers grow with the store: one eighth of its data files, from 16 MB to Postgres'
 * default 128 MB. A new or small store does not need 128 MB, which the WASM heap keeps resident
 * once touched (issue 15: idle RSS). A large one does: a page that misses is read through the
 * kernel's page cache with a read(2) from the WASM side (NODEFS), and at 100k memories, with
 * 16 MB, that cost every search ~0.4 ms of main-thread CPU (its candidates' facet check and
 * neighbour probe touch ~300 pages of `nodes`, 63 MB with its indexes; the vectors, 700 MB,
 * are read by jobs only). Measured at open, so a store that grows gets more at its next start.
 */
async function sharedBuffersMb(pgDir: string): Promise<number> {
  const bytes = await treeSize(join(pgDir, 'base'));
  return Math.min(MAX_SHARED_BUFFERS_MB, Math.max(MIN_SHARED_BUFFERS_MB, Math.round(bytes / 8 / 2 ** 20)));
}

const MIN_SHARED_BUFFERS_MB = 16;
const MAX_SHARED_BUFFERS_MB = 128;

/** Bytes of the files under `dir` (0 when it does not exist yet). */
async function treeSize(dir: string): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  let total = 0;
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) total += await treeSize(path);
    else if (e.isFile()) total += (await stat(path).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

/**
 * V8 compiles PGlite's WebAssembly with Liftoff, then recompiles hot functions with TurboFan on
 * background threads, whose malloc arenas stay resident for the life of the process (issue 15:
 * serve idle RSS ~60 MiB). Liftoff only, one compile thread: no measured CPU cost per search or
 * store at 10k memories, less CPU for short-lived processes (bench/results/2026-11-27-footprint).
 * Process-wide and one-way; it only concerns WebAssembly, and PGlite is the only WebAssembly here
 * (onnxruntime and USearch are native). `CONTEXT_GRAPH_PGLITE_TIER_UP=on` keeps V8's default.
 */
function baselineWasmOnly(): void {
  v8.setFlagsFromString('--liftoff-only');
  v8.setFlagsFromString('--wasm-num-compilation-tasks=1');
}

/**
 * PGlite runs a statement synchronously in WASM and settles its promise at once, so a chain of
 * awaited statements (an import batch, an embed job's writes) runs in microtasks and no
 * macrotask gets a turn: worker replies (embedding results, the index thread's acks) and timers
 * waited seconds behind a busy main thread, and a 10k import's index replica lagged ~8 s behind
 * its writes. A statement yields one event-loop turn when the last yield is YIELD_EVERY_MS old.
 */
const YIELD_EVERY_MS = 4;
let lastYieldAt = 0;

async function yieldIfDue(): Promise<void> {
  const now = performance.now();
  if (now - lastYieldAt < YIELD_EVERY_MS) return;
  lastYieldAt = now;
  await nextTurn();
}

class PgliteDb implements Db {
  readonly driver = 'pglite' as const;
  // Tracks "we are inside a transaction callback": with one connection, a db.query() from there
  // would queue behind the transaction that is waiting for it and hang forever.
  private readonly txScope = new AsyncLocalStorage<TxScope>();

  /** `prepared`: null sends every statement unnamed, as PGlite's own `query` does (CONTEXT_GRAPH_PGLITE_PREPARED=off). */
  constructor(
    private readonly pg: PGlite,
    private readonly prepared: PreparedStatements | null,
  ) {}

  async query<T extends Row = Row>(text: string, params: readonly unknown[] = []): Promise<T[]> {
    this.refuseInsideTransaction('query');
    try {
      const { prepared } = this;
      let rows: T[];
      if (prepared) {
        // PGlite's own query takes its transaction lock too, so no statement runs inside another caller's transaction.
        const run = () => this.pg._runExclusiveTransaction(() => prepared.query<T>(text, params));
        // Outside a transaction a statement that no longer fits the schema is run once more,
        // prepared again (the failed run had no effect).
        rows = await run().catch((err: unknown) => (mayNotFitSchema(err) ? run() : Promise.reject(err)));
        await this.pg.syncToFs();
      } else rows = (await this.pg.query<T>(text, params as unknown[])).rows;
      await yieldIfDue();
      return rows;
    } catch (err) {
      throw translateDbError(err, { sql: text, params });
    }
  }

  /** The multi-statement path (migrations, DDL): named statements are dropped after it, since their plans may no longer fit the schema. */
  async exec(sql: string): Promise<void> {
    this.refuseInsideTransaction('exec');
    try {
      await this.pg.exec(sql);
      const { prepared } = this;
      if (prepared) await this.pg._runExclusiveTransaction(() => prepared.forget());
    } catch (err) {
      throw translateDbError(err, { sql });
    }
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    this.refuseInsideTransaction('transaction');
    // Once a statement fails, every later one gets 25P02 and COMMIT turns into ROLLBACK:
    // remember the cause so the caller sees it rather than the echo.
    let firstError: StoreError | undefined;
    let fnFailure: { error: unknown } | undefined;
    const scope: TxScope = { open: true };
    const { prepared } = this;
    try {
      return await this.pg.transaction(async (tx) => {
        const handle: ExecQueryable = {
          async query<R extends Row = Row>(text: string, params: readonly unknown[] = []): Promise<R[]> {
            try {
              if (tx.closed) throw new Error('Transaction is closed');
              const rows = prepared ? await prepared.query<R>(text, params) : (await tx.query<R>(text, params as unknown[])).rows;
              await yieldIfDue();
              return rows;
            } catch (err) {
              const e = translateDbError(err, { sql: text, params });
              firstError ??= e;
              throw e;
            }
          },
          async exec(sql: string): Promise<void> {
            try {
              await tx.exec(sql);
              await prepared?.forget();
            } catch (err) {
              const e = translateDbError(err, { sql });
              firstError ??= e;
              throw e;
            }
          },
        };
        try {
          return await this.txScope.run(scope, () => fn(handle));
        } catch (err) {
          fnFailure = { error: err };
          throw err;
        } finally {
          scope.open = false;
        }
      });
    } catch (err) {
      throw settleTransactionError(err, fnFailure, firstError);
    }
  }

  async listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
    this.refuseInsideTransaction('listen');
    try {
      const unsubscribe = await this.pg.listen(channel, onPayload);
      return async () => {
        if (this.pg.closed) return;
        try {
          await unsubscribe();
        } catch (err) {
          throw translateDbError(err);
        }
      };
    } catch (err) {
      throw translateDbError(err);
    }
  }

  async close(): Promise<void> {
    if (this.pg.closed) return;
    try {
      await this.pg.close();
    } catch (err) {
      throw translateDbError(err);
    }
  }

  private refuseInsideTransaction(method: string): void {
    if (this.txScope.getStore()?.open) {
      throw new StoreError(
        'DB_ERROR',
        `db.${method}() was called inside db.transaction() on PGlite, which has a single connection: ` +
          'it would wait for the transaction that is waiting for it. Use the tx handle passed to the callback.',
      );
    }
  }
}
