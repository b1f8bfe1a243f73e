import postgres from 'postgres';
import type { Db, Queryable, Row } from './db.js';
import { settleTransactionError, StoreError, translateDbError } from './errors.js';
import type { ExecQueryable } from './migrate.js';

// postgres.js gives int8 and numeric as strings and bytea as Buffer; the contract says number,
// number and a plain Uint8Array (copied, so its offset is 0 and a Float32Array view can sit on it).
const types = {
  bigint: { to: 20, from: [20], parse: (x: string) => Number(x), serialize: (x: unknown) => String(x) },
  numeric: { to: 1700, from: [1700], parse: (x: string) => Number(x), serialize: (x: unknown) => String(x) },
  // Callers pass jsonb parameters as JSON text (PGlite needs text); postgres.js would
  // JSON.stringify that text again and store a JSON string instead of the object.
  json: {
    to: 114,
    from: [114, 3802],
    serialize: (x: unknown) => (typeof x === 'string' ? x : JSON.stringify(x)),
    parse: (x: string) => JSON.parse(x) as unknown,
  },
  bytea: {
    to: 17,
    from: [17],
    parse: (x: string) => new Uint8Array(Buffer.from(x.slice(2), 'hex')),
    serialize: (x: Uint8Array) => '\\x' + Buffer.from(x.buffer, x.byteOffset, x.byteLength).toString('hex'),
  },
};

// Extended protocol even without parameters, so a query() holding two statements fails the
// same way it does on PGlite; exec() is the multi-statement path. `simple` is untyped upstream.
const EXTENDED = { simple: false } as unknown as postgres.UnsafeQueryOptions;

type UnsafeParams = Parameters<postgres.Sql['unsafe']>[1];

/**
 * A Postgres server (14+) through postgres.js. `schema` puts the tables in their own schema
 * (search_path `"<schema>", public`, created if missing), which is how tests isolate themselves;
 * `public` stays on the path because extensions such as pg_trgm live there.
 */
export async function openPostgres(url: string, opts: { schema?: string; max?: number; deadlineMs?: number } = {}): Promise<Db> {
  const { schema } = opts;
  if (schema !== undefined && !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new StoreError('DB_ERROR', `invalid schema name ${JSON.stringify(schema)}: use letters, digits and underscores`);
  }
  const sql = postgres(url, {
    max: opts.max ?? 10,
    // A server that does not accept a connection in time is down, not slow.
    connect_timeout: Math.max(1, Math.ceil((opts.deadlineMs ?? DEFAULT_DEADLINE_MS) / 1000)),
    onnotice: () => {},
    // PGlite sends undefined parameters as null; postgres.js would throw.
    transform: { undefined: null },
    types,
    connection: {
      application_name: 'context-graph',
      ...(schema ? { search_path: `"${schema}", public` } : {}),
    },
  });
  try {
    // postgres.js connects lazily; fail here, with a clear code, rather than on the first tool call.
    if (schema) await createSchema(sql, schema);
    else await sql.unsafe('select 1');
  } catch (err) {
    await sql.end({ timeout: 0 }).catch(() => {});
    throw translateDbError(err);
  }
  return new PostgresDb(sql, opts.deadlineMs ?? DEFAULT_DEADLINE_MS);
}

/** Longest wait for one statement (and for a whole transaction's commit) before DB_UNAVAILABLE. */
const DEFAULT_DEADLINE_MS = 10_000;

/**
 * Races a driver call against the deadline. A stalled server (network partition, paused
 * process) otherwise holds the call for as long as TCP does; the statement itself is left to
 * finish or fail on its connection, and a transaction rolls back when its connection answers.
 */
async function withinDeadline<T>(work: PromiseLike<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreError('DB_UNAVAILABLE', `database unavailable: ${what()} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

async function createSchema(sql: postgres.Sql, schema: string): Promise<void> {
  try {
    await sql.unsafe(`create schema if not exists "${schema}"`);
  } catch (err) {
    // Two processes creating it at once: the loser gets a duplicate error, which is success.
    const code = (err as { code?: unknown }).code;
    if (code !== '23505' && code !== '42P06') throw err;
  }
}

class PostgresDb implements Db {
  readonly driver = 'postgres' as const;
  private closed = false;

  constructor(
    private readonly sql: postgres.Sql,
    private readonly deadlineMs: number,
  ) {}

  async query<T extends Row = Row>(text: string, params: readonly unknown[] = []): Promise<T[]> {
    try {
      // A plain array: postgres.js returns an Array subclass with extra fields.
      return Array.from(await withinDeadline(this.sql.unsafe(text, params as UnsafeParams, EXTENDED), this.deadlineMs, () => 'a statement')) as T[];
    } catch (err) {
      throw translateDbError(err, { sql: text, params });
    }
  }

  async exec(text: string): Promise<void> {
    try {
      await this.sql.unsafe(text);
    } catch (err) {
      throw translateDbError(err, { sql: text });
    }
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    let firstError: StoreError | undefined;
    let fnFailure: { error: unknown } | undefined;
    const deadlineMs = this.deadlineMs;
    // Each statement has its own deadline; BEGIN, COMMIT and ROLLBACK wait on the connection
    // too, so a watchdog is armed around each of them.
    let watchdog: NodeJS.Timeout | undefined;
    let stall: (err: unknown) => void = () => {};
    const stalled = new Promise<never>((_, reject) => (stall = reject));
    const arm = (what: string, failure?: unknown) => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => stall(failure ?? new StoreError('DB_UNAVAILABLE', `database unavailable: ${what} did not answer within ${deadlineMs} ms`)), deadlineMs);
    };
    try {
      arm('the start of a transaction');
      const begun = this.sql.begin(async (t) => {
        clearTimeout(watchdog);
        const handle: ExecQueryable = {
          async query<R extends Row = Row>(text: string, params: readonly unknown[] = []): Promise<R[]> {
            try {
              return Array.from(await withinDeadline(t.unsafe(text, params as UnsafeParams, EXTENDED), deadlineMs, () => 'a statement')) as R[];
            } catch (err) {
              const e = translateDbError(err, { sql: text, params });
              firstError ??= e;
              throw e;
            }
          },
          async exec(text: string): Promise<void> {
            try {
              await t.unsafe(text);
            } catch (err) {
              const e = translateDbError(err, { sql: text });
              firstError ??= e;
              throw e;
            }
          },
        };
        try {
          // Boxed: begin() would otherwise unwrap a returned array of promises.
          const value = { value: await fn(handle) };
          arm('the commit (it may or may not have been applied: check `history` before retrying)');
          return value;
        } catch (err) {
          fnFailure = { error: err };
          // A stalled rollback: the caller hears why the transaction failed, not that.
          arm('the rollback', err);
          throw err;
        }
      });
      const result = await Promise.race([begun, stalled]);
      return (result as { value: T }).value;
    } catch (err) {
      throw settleTransactionError(err, fnFailure, firstError);
    } finally {
      clearTimeout(watchdog);
    }
  }

  async listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
    try {
      // eslint-disable-next-line @typescript-eslint/unbound-method -- postgres.js returns a closure, not a method using `this`
      const { unlisten } = await this.sql.listen(channel, onPayload);
      return async () => {
        if (this.closed) return;
        try {
          await unlisten();
        } catch (err) {
          throw translateDbError(err);
        }
      };
    } catch (err) {
      throw translateDbError(err);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.sql.end({ timeout: 5 });
    } catch (err) {
      throw translateDbError(err);
    }
  }
}
