import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { createLogger } from '../../src/log.js';
import { packageRoot } from '../../src/paths.js';
import type { Db, Queryable } from '../../src/store/db.js';
import { isStoreError, StoreError, translateDbError } from '../../src/store/errors.js';
import { assertSupportedServer, migrate, MigrationError } from '../../src/store/migrate.js';
import { openPglite } from '../../src/store/pglite.js';
import { openPostgres } from '../../src/store/postgres.js';

// One suite, both drivers (STYLE-ANCHORS 10): the layers above must never branch on the driver.

const DATABASE_URL = process.env.DATABASE_URL;
const logger = createLogger('silent');

interface Harness {
  db: Db;
  /** Another Db on the same database (Postgres only: a second PGlite on one directory corrupts it). */
  openAnother?: () => Promise<Db>;
  cleanup(): Promise<void>;
}

async function pgliteHarness(): Promise<Harness> {
  const dir = await mkdtemp(join(tmpdir(), 'cg-store-db-'));
  const db = await openPglite(dir);
  return {
    db,
    async cleanup() {
      await db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function postgresHarness(): Promise<Harness> {
  const schema = `cg_test_${randomBytes(6).toString('hex')}`;
  const opened: Db[] = [];
  const open = async () => {
    const db = await openPostgres(DATABASE_URL!, { schema });
    opened.push(db);
    return db;
  };
  const db = await open();
  return {
    db,
    openAnother: open,
    async cleanup() {
      for (const d of opened) await d.close();
      const admin = await openPostgres(DATABASE_URL!, { max: 1 });
      await admin.exec(`drop schema if exists "${schema}" cascade`);
      await admin.close();
    },
  };
}

async function migrationFiles(): Promise<string[]> {
  return (await readdir(join(packageRoot(), 'db'))).filter((f) => f.endsWith('.sql')).sort();
}

let seq = 0;
async function insertNode(q: Queryable, fields: { id?: string; content?: string; topic?: string | null; tags?: string[]; metadata?: unknown } = {}) {
  const id = fields.id ?? `n-${process.pid}-${++seq}`;
  const [row] = await q.query<{ nid: number; id: string }>(
    `insert into nodes (id, content, topic, tags, metadata, content_hash) values ($1, $2, $3, $4, $5, $6) returning nid, id`,
    [id, fields.content ?? `content ${id}`, fields.topic ?? null, fields.tags ?? [], fields.metadata ?? {}, `hash-${id}`],
  );
  return row!;
}

async function countNodes(db: Db, ids: string[]): Promise<number> {
  const [row] = await db.query<{ n: number }>(`select count(*) as n from nodes where id = any($1::text[])`, [ids]);
  return row!.n;
}

function conformance(name: string, makeHarness: () => Promise<Harness>, skip: string | false) {
  describe(name, { skip }, () => {
    let h: Harness;
    let db: Db;
    before(async () => {
      h = await makeHarness();
      db = h.db;
    });
    after(async () => {
      await h?.cleanup();
    });

    test('migrate applies every file exactly once, even when called twice at the same time', async () => {
      const files = await migrationFiles();
      const [a, b] = await Promise.all([migrate(db, logger), migrate(db, logger)]);
      assert.deepEqual([...a.applied, ...b.applied].sort(), files);
      const rows = await db.query<{ version: number; name: string; checksum: string; applied_at: Date }>(
        `select version, name, checksum, applied_at from schema_migrations order by version`,
      );
      assert.equal(rows.length, files.length);
      assert.equal(rows[0]!.version, 1);
      assert.equal(rows[0]!.name, 'init');
      assert.match(rows[0]!.checksum, /^[0-9a-f]{64}$/);
      assert.ok(rows[0]!.applied_at instanceof Date);
    });

    test('re-running migrate applies nothing', async () => {
      assert.deepEqual(await migrate(db, logger), { applied: [] });
    });

    test('an applied migration whose file changed is refused', async () => {
      const [row] = await db.query<{ checksum: string }>(`select checksum from schema_migrations where version = 1`);
      await db.query(`update schema_migrations set checksum = 'edited' where version = 1`);
      try {
        await assert.rejects(migrate(db, logger), (err: unknown) => {
          assert.ok(err instanceof MigrationError);
          assert.equal(err.code, 'CHECKSUM_MISMATCH');
          assert.match(err.message, /001_init\.sql.*append-only/);
          return true;
        });
      } finally {
        await db.query(`update schema_migrations set checksum = $1 where version = 1`, [row!.checksum]);
      }
    });

    test('a migration file applies atomically: a failing statement leaves nothing behind', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'cg-migrations-'));
      try {
        for (const f of await migrationFiles()) await copyFile(join(packageRoot(), 'db', f), join(dir, f));
        await writeFile(join(dir, '900_ok.sql'), `create table cg_probe_ok (x int);\ninsert into cg_probe_ok values (1);\n`);
        await writeFile(join(dir, '901_bad.sql'), `create table cg_probe_bad (x int);\nselect no_such_function();\n`);
        await assert.rejects(migrate(db, logger, { dir }), (err: unknown) => isStoreError(err) && err.sqlState === '42883');
        const [ok] = await db.query<{ x: number }>(`select x from cg_probe_ok`);
        assert.equal(ok?.x, 1);
        const [bad] = await db.query<{ t: string | null }>(`select to_regclass('cg_probe_bad')::text as t`);
        assert.equal(bad?.t, null, 'the first statement of the failed file was rolled back');
        const versions = (await db.query<{ version: number }>(`select version from schema_migrations where version >= 900`)).map((r) => r.version);
        assert.deepEqual(versions, [900]);
      } finally {
        await db.query(`delete from schema_migrations where version >= 900`);
        await db.exec(`drop table if exists cg_probe_ok; drop table if exists cg_probe_bad`);
        await rm(dir, { recursive: true, force: true });
      }
    });

    test('result types follow the contract', async () => {
      const vector = new Float32Array([0.25, -1.5, 3.125, Math.PI]);
      const bytes = new Uint8Array(vector.buffer);
      const node = await insertNode(db, { tags: ['alpha', 'beta gamma', 'quote"d'], metadata: { nested: { a: [1, 'two', null] }, n: 1.5 } });
      await db.query(`insert into embeddings (node_nid, space, model_id, dim, vector) values ($1, 'E1', 'm', 4, $2)`, [node.nid, bytes]);
      const [row] = await db.query<Record<string, unknown>>(
        `select n.nid, n.created_at, n.metadata, n.tags, n.importance, e.vector, e.feed_seq,
                count(*) over () as total, 12.5::numeric as num, $2::text as missing
           from nodes n join embeddings e on e.node_nid = n.nid where n.nid = $1`,
        [node.nid, undefined],
      );
      assert.ok(row);
      assert.equal(typeof row.nid, 'number', 'int8 → number');
      assert.equal(typeof row.feed_seq, 'number');
      assert.equal(row.total, 1, 'count(*) is int8 → number');
      assert.equal(row.num, 12.5, 'numeric → number');
      assert.ok(row.created_at instanceof Date, 'timestamptz → Date');
      assert.ok(Math.abs((row.created_at as Date).getTime() - Date.now()) < 60_000);
      assert.deepEqual(row.metadata, { nested: { a: [1, 'two', null] }, n: 1.5 }, 'jsonb → parsed');
      assert.deepEqual(row.tags, ['alpha', 'beta gamma', 'quote"d'], 'text[] → string[]');
      assert.equal(row.importance, 0.5, 'real → number');
      assert.equal(row.missing, null, 'an undefined parameter is sent as null');
      const out = row.vector as Uint8Array;
      assert.equal(Object.getPrototypeOf(out), Uint8Array.prototype, 'bytea → plain Uint8Array (not Buffer)');
      assert.deepEqual(out, bytes);
      assert.deepEqual(new Float32Array(out.buffer, out.byteOffset, out.byteLength / 4), vector);
      // Callers pass jsonb as JSON text (single and in arrays): it must be stored as the object, not as a JSON string.
      const [typed] = await db.query<{ one: string; many: string[] }>(
        `select jsonb_typeof($1::jsonb) as one, array(select jsonb_typeof(x) from unnest($2::jsonb[]) as x) as many`,
        [JSON.stringify({ a: 1 }), [JSON.stringify({ b: 2 }), JSON.stringify([1])]],
      );
      assert.deepEqual(typed, { one: 'object', many: ['object', 'array'] });
      const [arrays] = await db.query<{ ids: unknown; nums: unknown }>(`select array[1, 2]::int8[] as ids, array[1.5]::numeric[] as nums`);
      assert.deepEqual(arrays, { ids: [1, 2], nums: [1.5] });
    });

    test('a transaction commits every statement when the callback resolves', async () => {
      const ids = [`c1-${seq}`, `c2-${seq}`];
      const result = await db.transaction(async (tx) => {
        for (const id of ids) await insertNode(tx, { id });
        return 'done';
      });
      assert.equal(result, 'done');
      assert.equal(await countNodes(db, ids), 2);
    });

    test('a throw inside a transaction rolls back every statement and rethrows the same error', async () => {
      const ids = [`r1-${seq}`, `r2-${seq}`];
      const boom = new Error('boom');
      await assert.rejects(
        db.transaction(async (tx) => {
          for (const id of ids) await insertNode(tx, { id });
          throw boom;
        }),
        (err) => err === boom,
      );
      assert.equal(await countNodes(db, ids), 0);
    });

    test('after a failed statement, the first real error is rethrown, not "transaction is aborted"', async () => {
      const existing = await insertNode(db);
      const fresh = `after-abort-${seq}`;
      // The callback swallows the failure and carries on: the next statement gets 25P02.
      await assert.rejects(
        db.transaction(async (tx) => {
          await insertNode(tx, { id: existing.id }).catch(() => {});
          await insertNode(tx, { id: fresh });
        }),
        (err: unknown) => isStoreError(err) && err.code === 'CONFLICT' && err.constraint === 'nodes_id_key',
      );
      // The callback swallows the failure and returns: COMMIT cannot commit.
      await assert.rejects(
        db.transaction(async (tx) => {
          await insertNode(tx, { id: fresh });
          await insertNode(tx, { id: existing.id }).catch(() => {});
          return 'looks fine';
        }),
        (err: unknown) => isStoreError(err) && err.code === 'CONFLICT',
      );
      assert.equal(await countNodes(db, [fresh]), 0);
    });

    test('a query outside an open transaction is not part of it', async () => {
      const inside = `inside-${seq}`;
      const outside = `outside-${seq}`;
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let inserted!: () => void;
      const insertedP = new Promise<void>((r) => (inserted = r));
      const txP = db.transaction(async (tx) => {
        await insertNode(tx, { id: inside });
        inserted();
        await gate;
        throw new Error('roll back');
      });
      await insertedP;
      // On PGlite (one connection) this waits for the transaction; on Postgres it runs beside it.
      const outsideP = insertNode(db, { id: outside });
      const readP = db.query(`select id from nodes where id = $1`, [inside]);
      release();
      await assert.rejects(txP, /roll back/);
      await outsideP;
      assert.deepEqual(await readP, [], 'the uncommitted row was never visible outside');
      assert.equal(await countNodes(db, [inside]), 0);
      assert.equal(await countNodes(db, [outside]), 1, 'the outside insert survived the rollback');
    });

    test('concurrent transactions do not interleave', async () => {
      await db.exec(`create table if not exists cg_counter (id int primary key, n int not null); insert into cg_counter values (1, 0) on conflict do nothing`);
      await Promise.all(
        Array.from({ length: 20 }, () =>
          db.transaction(async (tx) => {
            const [row] = await tx.query<{ n: number }>(`select n from cg_counter where id = 1 for update`);
            await new Promise((r) => setImmediate(r));
            await tx.query(`update cg_counter set n = $1 where id = 1`, [row!.n + 1]);
          }),
        ),
      );
      const [row] = await db.query<{ n: number }>(`select n from cg_counter where id = 1`);
      assert.equal(row?.n, 20);
      await db.exec(`drop table cg_counter`);
    });

    test('a unique violation is StoreError CONFLICT with no SQL or values in what gets logged', async () => {
      const secret = `secret-memory-${randomBytes(4).toString('hex')}`;
      await insertNode(db, { id: secret });
      const err = await insertNode(db, { id: secret }).then(
        () => assert.fail('expected a conflict'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof StoreError);
      assert.equal(err.name, 'StoreError');
      assert.equal(err.code, 'CONFLICT');
      assert.equal(err.retryable, false);
      assert.equal(err.sqlState, '23505');
      assert.equal(err.constraint, 'nodes_id_key');
      assert.doesNotMatch(err.message, /insert|secret/i);
      // Kept for debugging, but not enumerable.
      assert.match(err.sql ?? '', /insert into nodes/);
      assert.ok(err.params?.includes(secret));
      assert.ok(err.original);
      assert.deepEqual(Object.keys(err).sort(), ['code', 'constraint', 'name', 'retryable', 'sqlState']);
      for (const rendered of [JSON.stringify(err), inspect(err), await logged(err)]) {
        assert.ok(!rendered.includes(secret), `leaked a value: ${rendered}`);
        assert.ok(!/insert into/i.test(rendered), `leaked SQL: ${rendered}`);
      }
    });

    test('listen receives notify payloads until unsubscribed', async () => {
      const channel = `cg_test_${randomBytes(4).toString('hex')}`;
      const received: string[] = [];
      let wake: () => void = () => {};
      const unlisten = await db.listen(channel, (payload) => {
        received.push(payload);
        wake();
      });
      const next = () => new Promise<void>((r) => (wake = r));
      let arrived = next();
      await db.query(`select pg_notify($1, $2)`, [channel, 'hello']);
      await withTimeout(arrived, 5_000, 'notification');
      arrived = next();
      // Delivered at commit, from inside a transaction too.
      await db.transaction(async (tx) => {
        await tx.query(`select pg_notify($1, $2)`, [channel, '{"k":1}']);
      });
      await withTimeout(arrived, 5_000, 'notification from a transaction');
      assert.deepEqual(received, ['hello', '{"k":1}']);
      await unlisten();
      await db.query(`select pg_notify($1, $2)`, [channel, 'after']);
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(received, ['hello', '{"k":1}']);
    });

    test('pg_trgm is installed (similarity suggestions use it)', async () => {
      const [trgm] = await db.query<{ s: number }>(`select similarity('riverbank', 'riverbanks') as s`);
      assert.ok(trgm!.s > 0.5);
    });

    test('after close, queries fail as DB_UNAVAILABLE (retryable)', async () => {
      await db.close();
      await db.close();
      await assert.rejects(db.query('select 1'), (err: unknown) => isStoreError(err) && err.code === 'DB_UNAVAILABLE' && err.retryable);
    });
  });
}

conformance('store conformance: PGlite', pgliteHarness, false);
conformance('store conformance: Postgres', postgresHarness, DATABASE_URL ? false : 'DATABASE_URL not set');

describe('PGlite only', () => {
  let h: Harness;
  before(async () => {
    h = await pgliteHarness();
    await migrate(h.db, logger);
  });
  after(async () => {
    await h?.cleanup();
  });

  test('db.query inside db.transaction fails clearly instead of waiting forever', async () => {
    await assert.rejects(
      h.db.transaction(async () => {
        await h.db.query('select 1');
      }),
      (err: unknown) => isStoreError(err) && /inside db\.transaction\(\).*tx handle/.test(err.message),
    );
    // A query started after the transaction settled is not refused.
    assert.deepEqual(await h.db.query('select 1 as x'), [{ x: 1 }]);
  });
});

describe('Postgres only', { skip: DATABASE_URL ? false : 'DATABASE_URL not set' }, () => {
  let h: Harness;
  before(async () => {
    h = await postgresHarness();
  });
  after(async () => {
    await h?.cleanup();
  });

  test('concurrent migrate() from two handles applies each file once and neither fails', async () => {
    const a = h.db;
    const b = await h.openAnother!();
    const c = await h.openAnother!();
    const results = await Promise.all([migrate(a, logger), migrate(b, logger), migrate(c, logger)]);
    assert.deepEqual(results.flatMap((r) => r.applied).sort(), await migrationFiles());
    const [row] = await a.query<{ n: number }>(`select count(*) as n from schema_migrations`);
    assert.equal(row?.n, (await migrationFiles()).length);
  });

  test('a deadlock surfaces as RETRYABLE_CONFLICT', async () => {
    const other = await h.openAnother!();
    await h.db.exec(`create table cg_dl (id int primary key, v int); insert into cg_dl values (1, 0), (2, 0)`);
    let bothLocked = 0;
    let go!: () => void;
    const ready = new Promise<void>((r) => (go = r));
    const cross = (db: Db, first: number, second: number) =>
      db.transaction(async (tx) => {
        await tx.query(`update cg_dl set v = v + 1 where id = $1`, [first]);
        if (++bothLocked === 2) go();
        await ready;
        await tx.query(`update cg_dl set v = v + 1 where id = $1`, [second]);
      });
    const results = await Promise.allSettled([cross(h.db, 1, 2), cross(other, 2, 1)]);
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.equal(failures.length, 1, 'Postgres aborts exactly one side');
    const err = failures[0]!.reason as StoreError;
    assert.ok(isStoreError(err));
    assert.equal(err.code, 'RETRYABLE_CONFLICT');
    assert.equal(err.sqlState, '40P01');
    assert.equal(err.retryable, true);
  });

  test('a connection terminated mid-query surfaces as DB_UNAVAILABLE', async () => {
    const victim = await openPostgres(DATABASE_URL!, { max: 1 });
    try {
      const [{ pid }] = (await victim.query<{ pid: number }>(`select pg_backend_pid() as pid`)) as [{ pid: number }];
      // Settled into a value at once, so the rejection is never briefly unhandled.
      const sleeping = victim.query(`select pg_sleep(10)`).then(
        () => null,
        (e: unknown) => e,
      );
      await new Promise((r) => setTimeout(r, 200));
      await h.db.query(`select pg_terminate_backend($1)`, [pid]);
      const err = await sleeping;
      assert.ok(isStoreError(err), String(err));
      assert.equal(err.code, 'DB_UNAVAILABLE');
      assert.equal(err.retryable, true);
    } finally {
      await victim.close();
    }
  });

  test('the schema option keeps tables out of public', async () => {
    const [row] = await h.db.query<{ schema: string }>(
      `select table_schema as schema from information_schema.tables where table_name = 'nodes' and table_schema = current_schema()`,
    );
    assert.match(row?.schema ?? '', /^cg_test_[0-9a-f]{12}$/);
  });
});

test('openPostgres on a closed port fails as DB_UNAVAILABLE', async () => {
  await assert.rejects(openPostgres('postgres://postgres@127.0.0.1:1/test'), (err: unknown) => {
    assert.ok(isStoreError(err));
    assert.equal(err.code, 'DB_UNAVAILABLE');
    assert.equal(err.retryable, true);
    return true;
  });
});

test('translateDbError maps SQLSTATEs and client codes the same for both drivers', () => {
  const cases: Array<[Record<string, unknown>, string, boolean]> = [
    [{ code: '23505', constraint_name: 'x_key', message: 'duplicate key' }, 'CONFLICT', false], // postgres.js field
    [{ code: '23505', constraint: 'x_key', message: 'duplicate key' }, 'CONFLICT', false], // PGlite field
    [{ code: '40001', message: 'could not serialize access' }, 'RETRYABLE_CONFLICT', true],
    [{ code: '40P01', message: 'deadlock detected' }, 'RETRYABLE_CONFLICT', true],
    [{ code: '57P01', message: 'terminating connection due to administrator command' }, 'DB_UNAVAILABLE', true],
    [{ code: '08006', message: 'connection failure' }, 'DB_UNAVAILABLE', true],
    [{ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:5432' }, 'DB_UNAVAILABLE', true],
    [{ code: 'ECONNRESET', message: 'read ECONNRESET' }, 'DB_UNAVAILABLE', true],
    [{ code: 'CONNECTION_CLOSED', message: 'write CONNECTION_CLOSED' }, 'DB_UNAVAILABLE', true],
    [{ message: 'PGlite is closed' }, 'DB_UNAVAILABLE', true],
    [{ code: '42P01', message: 'relation "x" does not exist' }, 'DB_ERROR', false],
  ];
  for (const [raw, code, retryable] of cases) {
    const err = translateDbError(Object.assign(new Error(String(raw.message)), raw));
    assert.equal(err.code, code, JSON.stringify(raw));
    assert.equal(err.retryable, retryable, JSON.stringify(raw));
  }
  assert.equal(translateDbError(new Error('x'), {}).constraint, undefined);
  const conflict = translateDbError(Object.assign(new Error('dup'), { code: '23505', constraint_name: 'x_key' }));
  assert.equal(conflict.constraint, 'x_key');
  // Data exceptions quote the rejected input; the message drops it.
  const data = translateDbError(Object.assign(new Error('invalid input syntax for type integer: "private text"'), { code: '22P02' }));
  assert.doesNotMatch(data.message, /private/);
  assert.equal(translateDbError(data), data, 'already translated errors pass through');
});

test('servers older than Postgres 14 are refused with the fix named', () => {
  assert.throws(
    () => assertSupportedServer(130011, '13.11'),
    (err: unknown) => {
      assert.ok(err instanceof MigrationError);
      assert.equal(err.code, 'UNSUPPORTED_SERVER');
      assert.match(err.message, /13\.11.*PostgreSQL 14 or newer.*Upgrade the server.*DATABASE_URL/);
      return true;
    },
  );
  assert.doesNotThrow(() => assertSupportedServer(140000));
  assert.doesNotThrow(() => assertSupportedServer(180006));
});

async function logged(err: unknown): Promise<string> {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  pino({ level: 'info' }, sink).error({ err }, 'store error');
  await new Promise((r) => setImmediate(r));
  return chunks.join('');
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
    }),
  ]);
}
