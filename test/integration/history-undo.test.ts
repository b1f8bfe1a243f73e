import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { ulid } from 'ulid';
import type { JobQueue } from '../../src/jobs/queue.js';
import { createLogger } from '../../src/log.js';
import { EntriesService } from '../../src/services/entries.js';
import { entriesAsOf, resolveAsOf } from '../../src/services/as-of.js';
import { HistoryService } from '../../src/services/history.js';
import { EmbeddingScheduler } from '../../src/services/embedding-scheduler.js';
import { MemoryService } from '../../src/services/memory.js';
import { image, writeTransaction } from '../../src/services/writes.js';
import type { Db } from '../../src/store/db.js';
import { EDGE_COLUMNS } from '../../src/store/edges-repo.js';
import { NODE_COLUMNS } from '../../src/store/nodes-repo.js';
import { type Harness, pgliteHarness, postgresHarness } from '../helpers/stores.js';

const DATABASE_URL = process.env.DATABASE_URL;
const logger = createLogger('silent');

/** A queue that runs nothing and remembers which nodes were sent to be embedded. */
function recordingQueue(): JobQueue & { embedded: number[] } {
  const embedded: number[] = [];
  const q = {
    backend: 'in-process',
    embedded,
    async enqueue(_type: string, payload: unknown, options: { jobId?: string } = {}) {
      embedded.push(...((payload as { nids: number[] }).nids ?? []));
      return { id: options.jobId ?? 'job', finished: async () => undefined };
    },
    async consume() {},
    async counts() {
      return { waiting: 0, active: 0, failed: 0 };
    },
    async close() {},
  };
  return q as unknown as JobQueue & { embedded: number[] };
}

const drivers: Array<[string, () => Promise<Harness>]> = [['pglite', pgliteHarness]];
if (DATABASE_URL) drivers.push(['postgres', postgresHarness]);

for (const [driver, open] of drivers) {
  describe(`history service: undo/redo, history, as-of (${driver})`, () => {
    let h: Harness;
    let db: Db;
    let queue: ReturnType<typeof recordingQueue>;
    let memory: MemoryService;
    let entries: EntriesService;
    let history: HistoryService;

    before(async () => {
      h = await open();
      db = h.db;
    });
    after(async () => {
      await h?.cleanup();
    });
    beforeEach(() => {
      queue = recordingQueue();
      const embedding = new EmbeddingScheduler({ queue, indexSync: null, logger, waitMs: 0, autoEdges: false });
      memory = new MemoryService({ db, embedding, logger });
      entries = new EntriesService({ db, embedding });
      history = new HistoryService({ db, embedding, logger });
    });

    async function nodeImage(id: string): Promise<Record<string, unknown> | null> {
      const [row] = await db.query(`select ${NODE_COLUMNS} from nodes where id = $1`, [id]);
      return row ? (image(row) as Record<string, unknown>) : null;
    }
    async function edgeImage(id: string): Promise<Record<string, unknown> | null> {
      const [row] = await db.query(`select ${EDGE_COLUMNS} from edges where id = $1`, [id]);
      return row ? (image(row) as Record<string, unknown>) : null;
    }
    async function store(content: string) {
      return memory.store({ content, project_id: 'p', memory_type: 'semantic', topic: 't' });
    }
    async function relate(src: string, dst: string) {
      const id = ulid();
      const { txId } = await writeTransaction(db, 'relate', {}, async (tx, log) => {
        const [row] = await tx.query(`insert into edges (id, src, dst, predicate, metadata) values ($1, $2, $3, 'depends_on', '{"k": 1}'::jsonb) returning ${EDGE_COLUMNS}`, [
          id,
          src,
          dst,
        ]);
        log({ entity: 'edge', entityId: id, before: null, after: image(row) });
      });
      return { id, txId };
    }
    async function txState() {
      return db.query(`select tx_id, op, reverted_by from transactions order by tx_id`);
    }
    async function snapshot() {
      return {
        nodes: await db.query(`select ${NODE_COLUMNS} from nodes order by id`),
        edges: await db.query(`select ${EDGE_COLUMNS} from edges order by id`),
        txs: await txState(),
      };
    }

    test('store: undo removes the row, redo brings back the exact image and nid', async () => {
      const s = await store('Undoing a store removes the entry.');
      await db.query(`insert into embeddings (node_nid, space, model_id, dim, vector) values ($1, 'E1', 'm', 1, '\\x00000000')`, [s.node.nid]);
      const created = await nodeImage(s.node.id);

      const u = await history.undo({});
      assert.equal(u.op, 'undo');
      assert.deepEqual(u.revertedTxIds, [s.txId]);
      assert.deepEqual(u.entities, [{ entity: 'node', entity_id: s.node.id, change_type: 'delete' }]);
      assert.equal(await nodeImage(s.node.id), null, 'the row is gone');
      assert.equal((await db.query(`select 1 from embeddings where node_nid = $1`, [s.node.nid])).length, 0);
      const [t] = await db.query<{ reverted_by: number }>(`select reverted_by from transactions where tx_id = $1`, [s.txId]);
      assert.equal(t!.reverted_by, u.txId);

      queue.embedded.length = 0;
      const r = await history.undo({ redo: true });
      assert.equal(r.op, 'redo');
      assert.deepEqual(r.revertedTxIds, [u.txId]);
      assert.deepEqual(await nodeImage(s.node.id), created, 'same image, same nid');
      assert.deepEqual(queue.embedded, [s.node.nid], 're-embedded');
      // The redo is undoable again.
      const u2 = await history.undo({});
      assert.deepEqual(u2.revertedTxIds, [r.txId]);
      assert.equal(await nodeImage(s.node.id), null);
      await history.undo({ redo: true });
      assert.deepEqual(await nodeImage(s.node.id), created);
    });

    test('update: undo restores the before image, redo the after image', async () => {
      const s = await store('The rollback window is five minutes.');
      const v1 = await nodeImage(s.node.id);
      queue.embedded.length = 0;
      const up = await entries.update({ id: s.node.id, content: 'The rollback window is ten minutes.', tags: ['ops'], valid_from: new Date('2026-01-01T00:00:00Z') });
      assert.equal(up.node.version, 2);
      assert.equal(up.superseded, null);
      assert.deepEqual(queue.embedded, [s.node.nid], 'content change re-embeds');
      const v2 = await nodeImage(s.node.id);
      assert.equal(v2!.content, 'The rollback window is ten minutes.');
      assert.equal(v2!.valid_from, '2026-01-01T00:00:00.000Z');

      queue.embedded.length = 0;
      const u = await history.undo({});
      assert.deepEqual(u.entities, [{ entity: 'node', entity_id: s.node.id, change_type: 'update' }]);
      assert.deepEqual(await nodeImage(s.node.id), v1);
      assert.deepEqual(queue.embedded, [s.node.nid], 'restored content re-embeds');
      await history.undo({ redo: true });
      assert.deepEqual(await nodeImage(s.node.id), v2);
    });

    test('supersede: one transaction closes the old entry and creates the new; undo reverts both', async () => {
      const s = await store('Payments deploy blue-green.');
      const old = await nodeImage(s.node.id);
      const up = await entries.update({ id: s.node.id, content: 'Payments deploy canary-first.', supersedes: true });
      assert.ok(up.superseded);
      assert.notEqual(up.node.id, s.node.id);
      assert.equal(up.node.metadata.supersedes, s.node.id);
      assert.equal(up.superseded!.metadata.superseded_by, up.node.id);
      assert.ok(up.superseded!.valid_to, 'old fact closed');
      assert.equal(up.superseded!.deleted_at, null, 'old fact kept');
      assert.equal(up.node.valid_from!.getTime(), up.superseded!.valid_to!.getTime());
      const [t] = await db.query<{ op: string; n: number }>(`select t.op, (select count(*) from tx_changes c where c.tx_id = t.tx_id) as n from transactions t where tx_id = $1`, [
        up.txId,
      ]);
      assert.deepEqual({ ...t }, { op: 'supersede', n: 2 });
      await assert.rejects(entries.update({ id: s.node.id, content: 'x', supersedes: true }), { code: 'CONFLICT' });

      const newImage = await nodeImage(up.node.id);
      const closed = await nodeImage(s.node.id);
      const u = await history.undo({});
      assert.equal(u.entities.length, 2);
      assert.deepEqual(await nodeImage(s.node.id), old);
      assert.equal(await nodeImage(up.node.id), null);
      await history.undo({ redo: true });
      assert.deepEqual(await nodeImage(s.node.id), closed);
      assert.deepEqual(await nodeImage(up.node.id), newImage);
    });

    test('delete: tombstones entries and their edges, retracts vectors; undo and redo', async () => {
      const a = await store('Service A calls service B.');
      const b = await store('Service B owns the ledger.');
      const e = await relate(a.node.id, b.node.id);
      await db.query(`insert into embeddings (node_nid, space, model_id, dim, vector) values ($1, 'E1', 'm', 1, '\\x00000000')`, [a.node.nid]);
      const liveA = await nodeImage(a.node.id);
      const liveEdge = await edgeImage(e.id);

      const d = await entries.delete({ ids: [a.node.id], rationale: 'obsolete' });
      assert.deepEqual(d.ids, [a.node.id]);
      assert.equal(d.edgesDeleted, 1);
      assert.ok((await nodeImage(a.node.id))!.deleted_at);
      assert.ok((await edgeImage(e.id))!.deleted_at);
      const [emb] = await db.query<{ vector: unknown }>(`select vector from embeddings where node_nid = $1`, [a.node.nid]);
      assert.equal(emb!.vector, null, 'vector retracted');
      const deletedA = await nodeImage(a.node.id);
      const deletedEdge = await edgeImage(e.id);
      await assert.rejects(entries.delete({ ids: [a.node.id] }), (err: any) => err.code === 'CONFLICT' && /already deleted/.test(err.message));
      await assert.rejects(entries.delete({ ids: ['nope'] }), { code: 'NODE_NOT_FOUND' });
      await assert.rejects(entries.update({ id: a.node.id, content: 'x' }), { code: 'NODE_NOT_FOUND' });

      queue.embedded.length = 0;
      const u = await history.undo({});
      assert.deepEqual(u.entities.map((x) => [x.entity, x.change_type]).sort(), [
        ['edge', 'restore'],
        ['node', 'restore'],
      ]);
      assert.deepEqual(await nodeImage(a.node.id), liveA);
      assert.deepEqual(await edgeImage(e.id), liveEdge);
      assert.deepEqual(queue.embedded, [a.node.nid]);
      await history.undo({ redo: true });
      assert.deepEqual(await nodeImage(a.node.id), deletedA);
      assert.deepEqual(await edgeImage(e.id), deletedEdge);
    });

    test('relate (an edge insert): undo deletes the row, redo restores it', async () => {
      const a = await store('Edge source.');
      const b = await store('Edge target.');
      const e = await relate(a.node.id, b.node.id);
      const img = await edgeImage(e.id);
      const u = await history.undo({ txId: e.txId });
      assert.deepEqual(u.entities, [{ entity: 'edge', entity_id: e.id, change_type: 'delete' }]);
      assert.equal(await edgeImage(e.id), null);
      await assert.rejects(history.undo({ txId: e.txId }), (err: any) => err.code === 'CONFLICT' && /already reverted/.test(err.message));
      const r = await history.undo({ txId: u.txId });
      assert.equal(r.op, 'redo', 'undoing an undo transaction is a redo');
      assert.deepEqual(await edgeImage(e.id), img);
    });

    test('undo of N=3 is all or nothing: a conflict in the middle changes nothing', async () => {
      const a = await store('Entry A.');
      const b = await store('Entry B.');
      const c = await store('Entry C.');
      // A change to B outside the undo stack that is still in effect (as a foreign revert would be).
      const before = await nodeImage(b.node.id);
      const { txId: foreign } = await writeTransaction(db, 'undo', {}, async (tx, log) => {
        const [row] = await tx.query(`update nodes set content = 'Entry B, edited.' where id = $1 returning ${NODE_COLUMNS}`, [b.node.id]);
        log({ entity: 'node', entityId: b.node.id, before, after: image(row) });
      });
      const snap = await snapshot();
      await assert.rejects(history.undo({ steps: 3 }), (err: any) => {
        assert.equal(err.code, 'CONFLICT');
        assert.equal(err.details.conflicting_tx_id, foreign);
        assert.equal(err.details.tx_id, b.txId);
        assert.match(err.message, new RegExp(`transaction ${foreign}`));
        return true;
      });
      assert.deepEqual(await snapshot(), snap, 'nothing changed');

      // Redo N=3 with a conflict in the middle.
      const u1 = await history.undo({ txId: c.txId });
      const u2 = await history.undo({ txId: a.txId });
      const u3 = await history.undo({ txId: foreign });
      assert.equal(u3.op, 'redo');
      // Now re-create A's id outside the log's undo chain: redo of u2 must refuse.
      const { txId: recreate } = await writeTransaction(db, 'store', {}, async (tx, log) => {
        const [row] = await tx.query(`insert into nodes (id, content, content_hash) values ($1, 'A again', 'h') returning ${NODE_COLUMNS}`, [a.node.id]);
        log({ entity: 'node', entityId: a.node.id, before: null, after: image(row) });
      });
      const [u1row] = await db.query<{ reverted_by: number | null }>(`select reverted_by from transactions where tx_id = $1`, [u1.txId]);
      assert.equal(u1row!.reverted_by, null);
      const snap2 = await snapshot();
      await assert.rejects(history.undo({ redo: true, steps: 2 }), (err: any) => err.code === 'CONFLICT' && err.details.conflicting_tx_id === recreate);
      assert.deepEqual(await snapshot(), snap2, 'nothing changed');
    });

    test('undo steps=2 reverts the two newest in one transaction; undo then redo restores exact images', async () => {
      const a = await store('First.');
      const upd = await entries.update({ id: a.node.id, content: 'First, edited.' });
      const b = await store('Second.');
      const afterAll = { a: await nodeImage(a.node.id), b: await nodeImage(b.node.id) };
      const u = await history.undo({ steps: 2, rationale: 'test' });
      assert.deepEqual(u.revertedTxIds, [upd.txId, b.txId]);
      assert.equal((await nodeImage(a.node.id))!.content, 'First.');
      assert.equal(await nodeImage(b.node.id), null);
      const [t] = await db.query<{ op: string; rationale: string }>(`select op, rationale from transactions where tx_id = $1`, [u.txId]);
      assert.deepEqual({ ...t }, { op: 'undo', rationale: 'test' });
      await history.undo({ redo: true });
      assert.deepEqual({ a: await nodeImage(a.node.id), b: await nodeImage(b.node.id) }, afterAll);
    });

    test('a later update blocks undo of an earlier one, naming it', async () => {
      const a = await store('Conflict base.');
      const u1 = await entries.update({ id: a.node.id, content: 'edit 1' });
      const u2 = await entries.update({ id: a.node.id, content: 'edit 2' });
      await assert.rejects(history.undo({ txId: u1.txId }), (err: any) => err.code === 'CONFLICT' && err.details.conflicting_tx_id === u2.txId);
      await assert.rejects(history.undo({ txId: 999_999 }), { code: 'NODE_NOT_FOUND' });
    });

    test('concurrent undos never revert the same transaction twice', async () => {
      const a = await store('concurrent undo A');
      const b = await store('concurrent undo B');
      const [x, y] = await Promise.all([history.undo({}), history.undo({})]);
      assert.deepEqual(
        [...x.revertedTxIds, ...y.revertedTxIds].sort((m, n) => m - n),
        [a.txId, b.txId],
      );
      assert.equal(await nodeImage(a.node.id), null);
      assert.equal(await nodeImage(b.node.id), null);
    });

    test('history pages newest first with a stable cursor while writes happen', async () => {
      for (let i = 0; i < 12; i++) await store(`paging ${i}`);
      const seen: number[] = [];
      let cursor: string | undefined;
      let first: number | null = null;
      let pages = 0;
      for (;;) {
        const page = await history.list({ limit: 5, cursor });
        first ??= page.as_of_tx_id;
        assert.equal(page.as_of_tx_id, first);
        seen.push(...page.items.map((i) => i.tx_id));
        pages++;
        // Concurrent writes between (and during) page reads.
        await Promise.all([store(`concurrent ${pages}a`), store(`concurrent ${pages}b`), history.list({ limit: 3 })]);
        if (!page.next_cursor) break;
        cursor = page.next_cursor;
      }
      const all = (await db.query<{ tx_id: number }>(`select tx_id from transactions where tx_id <= $1 order by tx_id desc`, [first])).map((r) => r.tx_id);
      assert.deepEqual(seen, all, 'every transaction once, none skipped, newest first');
      assert.equal(new Set(seen).size, seen.length);

      const items = (await history.list({ limit: 100 })).items;
      const store1 = items.find((i) => i.op === 'store')!;
      assert.equal(store1.changes[0]!.change_type, 'create');
      const undo = items.find((i) => i.op === 'undo' && i.reverts.length > 0);
      assert.ok(undo);
      const onlyUpdates = await history.list({ limit: 100, op: 'update' });
      assert.ok(onlyUpdates.items.length > 0 && onlyUpdates.items.every((i) => i.op === 'update'));
      const byEntity = await history.list({ limit: 100, entityId: store1.changes[0]!.entity_id });
      assert.deepEqual(
        byEntity.items.map((i) => i.tx_id),
        [store1.tx_id],
      );
      const future = await history.list({ limit: 10, since: new Date(Date.now() + 3_600_000) });
      assert.equal(future.items.length, 0);
      assert.equal(future.next_cursor, null);
      await assert.rejects(history.list({ limit: 5, cursor: 'garbage' }), { code: 'INVALID_PARAMS' });
    });

    test('entriesAsOf reads the state after a transaction', async () => {
      const a = await store('as-of v1');
      const up = await entries.update({ id: a.node.id, content: 'as-of v2' });
      const d = await entries.delete({ ids: [a.node.id] });
      assert.equal((await entriesAsOf(db, a.txId, [a.node.id]))[0]!.entry.content, 'as-of v1');
      assert.equal((await entriesAsOf(db, up.txId, [a.node.id]))[0]!.entry.content, 'as-of v2');
      assert.equal((await entriesAsOf(db, d.txId, [a.node.id])).length, 0);
      assert.equal((await entriesAsOf(db, d.txId, [a.node.id], { includeDeleted: true })).length, 1);
      assert.equal((await entriesAsOf(db, a.txId - 1, [a.node.id])).length, 0);
      assert.equal(await resolveAsOf(db, undefined), d.txId);
      await assert.rejects(resolveAsOf(db, d.txId + 1000), { code: 'INVALID_PARAMS' });
    });
  });
}
