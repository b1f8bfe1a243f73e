import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createLogger } from '../../src/log.js';
import { packageRoot } from '../../src/paths.js';
import { newNode } from '../../src/services/writes.js';
import type { Db } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { recentlyAccessed, recordAccess } from '../../src/store/navigation-repo.js';
import { insertNode, type NodeRecord } from '../../src/store/nodes-repo.js';
import { openPglite } from '../../src/store/pglite.js';
import { openPostgres } from '../../src/store/postgres.js';
import { insertRetrieval } from '../../src/store/retrieval-log-repo.js';

const logger = createLogger('silent');

/** An empty store on each backend, migrated by the caller; closed (and its schema dropped) afterwards. */
const backends: Array<[string, () => Promise<{ db: Db; drop: () => Promise<void> }>]> = [['PGlite', async () => ({ db: await openPglite('memory'), drop: async () => {} })]];
if (process.env.DATABASE_URL) {
  backends.push([
    'Postgres',
    async () => {
      const url = process.env.DATABASE_URL!;
      const schema = `cg_test_${randomBytes(6).toString('hex')}`;
      return {
        db: await openPostgres(url, { schema }),
        drop: async () => {
          const admin = await openPostgres(url, { max: 1 });
          await admin.exec(`drop schema if exists "${schema}" cascade`);
          await admin.close();
        },
      };
    },
  ]);
}

async function withStore(open: () => Promise<{ db: Db; drop: () => Promise<void> }>, fn: (db: Db) => Promise<void>): Promise<void> {
  const { db, drop } = await open();
  try {
    await fn(db);
  } finally {
    await db.close();
    await drop();
  }
}

const remember = (db: Db, content: string) => insertNode(db, newNode({ kind: 'memory', project_id: 'p', content }));
/** The row version of a node: a new one after any update of its row. */
const rowVersion = async (db: Db, node: NodeRecord) => (await db.query<{ v: string }>(`select xmin::text as v from nodes where nid = $1`, [node.nid]))[0]!.v;
const totals = async (db: Db) =>
  new Map((await db.query<{ node_id: string; access_count: number }>(`select node_id, access_count from node_access_totals`)).map((r) => [r.node_id, Number(r.access_count)]));

for (const [name, open] of backends) {
  describe(`access totals on ${name}`, () => {
    test('a store migrated from the columns on nodes keeps its access counts and times, and nodes loses the columns', async () => {
      await withStore(open, async (db) => {
        const dir = await mkdtemp(join(tmpdir(), 'cg-migrations-'));
        try {
          const files = (await readdir(join(packageRoot(), 'db'))).filter((f) => f.endsWith('.sql') && f < '180');
          for (const f of files) await copyFile(join(packageRoot(), 'db', f), join(dir, f));
          await migrate(db, logger, { dir });
          const read = await remember(db, 'Read twice before the upgrade.');
          const unread = await remember(db, 'Never read.');
          await db.query(`update nodes set access_count = 2, last_accessed_at = '2026-01-02T03:04:05Z' where nid = $1`, [read.nid]);

          assert.equal((await migrate(db, logger)).applied[0], '180_node_access_totals.sql');
          const rows = await db.query<{ node_id: string; access_count: number; last_accessed_at: Date }>(`select * from node_access_totals`);
          assert.deepEqual(
            rows.map((r) => [r.node_id, Number(r.access_count), new Date(r.last_accessed_at).toISOString()]),
            [[read.id, 2, '2026-01-02T03:04:05.000Z']],
          );
          const columns = await db.query<{ column_name: string }>(
            `select column_name from information_schema.columns where table_name = 'nodes' and table_schema = current_schema() and column_name like '%access%'`,
          );
          assert.deepEqual(columns, []);
          const recent = await recentlyAccessed(db, { sessionId: null, projectId: 'p', since: null, limit: 5 });
          assert.deepEqual(
            recent.map((r) => [r.id, Number(r.access_count)]),
            [
              [unread.id, 0],
              [read.id, 2],
            ],
            'the unread memory by its creation (now), the read one by its 2026-01-02 read',
          );
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      });
    });

    test('reads count per node across sessions without rewriting the node rows, and order the recent context', async () => {
      await withStore(open, async (db) => {
        await migrate(db, logger);
        const a = await remember(db, 'Alpha.');
        const b = await remember(db, 'Beta.');
        const c = await remember(db, 'Gamma.');
        const before = await Promise.all([a, b].map((n) => rowVersion(db, n)));

        // A search that hit a and b (b twice in its list), then a read of a by another session.
        await insertRetrieval(db, { sessionId: 's1', actor: 'x', tool: 'search', projectId: 'p', query: 'q', hits: [], signalTop: {} }, { sessionId: 's1', nodes: [a, b, b] });
        await recordAccess(db, 's2', [a]);

        assert.deepEqual(
          await totals(db),
          new Map([
            [a.id, 2],
            [b.id, 1],
          ]),
        );
        assert.deepEqual(await Promise.all([a, b].map((n) => rowVersion(db, n))), before, 'no node row was rewritten by a read');
        const recent = await recentlyAccessed(db, { sessionId: null, projectId: null, since: null, limit: 3 });
        assert.deepEqual(
          recent.map((r) => r.id),
          [a.id, b.id, c.id],
          'read nodes by their last read (a last), then the unread one',
        );
        const s2 = await recentlyAccessed(db, { sessionId: 's2', projectId: null, since: null, limit: 3 });
        assert.deepEqual(
          s2.map((r) => [r.id, Number(r.access_count)]),
          [[a.id, 1]],
        );
      });
    });
  });
}
