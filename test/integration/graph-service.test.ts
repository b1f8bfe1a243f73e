import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isAppError } from '../../src/errors.js';
import { createLogger } from '../../src/log.js';
import { GraphService, type Neighborhood, type NeighborhoodQuery, type StartNotFound } from '../../src/services/graph.js';
import { EmbeddingScheduler } from '../../src/services/embedding-scheduler.js';
import { MemoryService } from '../../src/services/memory.js';
import type { Db } from '../../src/store/db.js';
import { type Harness, pgliteHarness, postgresHarness } from '../helpers/stores.js';
import { latestTxId } from '../../src/store/tx-log.js';
import type { JobQueue } from '../../src/jobs/queue.js';

// One suite, both drivers: PGlite always, Postgres when DATABASE_URL is set.

const DATABASE_URL = process.env.DATABASE_URL;
const logger = createLogger('silent');

/** A queue that records what it was asked to embed and does nothing else. */
function recordingQueue(): JobQueue & { enqueued: unknown[] } {
  const enqueued: unknown[] = [];
  return {
    backend: 'in-process',
    enqueued,
    async enqueue(_name: string, payload: unknown, opts?: { jobId?: string }) {
      enqueued.push(payload);
      return { id: opts?.jobId ?? 'job', finished: async () => undefined };
    },
  } as unknown as JobQueue & { enqueued: unknown[] };
}

function found(r: Neighborhood | StartNotFound): Neighborhood {
  assert.equal(r.found, true, `start not found: ${JSON.stringify(r)}`);
  return r as Neighborhood;
}

async function rejectsWith(p: Promise<unknown>, code: string): Promise<Record<string, unknown> | undefined> {
  try {
    await p;
  } catch (err) {
    assert.ok(isAppError(err), `expected an AppError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    return err.details;
  }
  assert.fail(`expected ${code}`);
}

const harnesses: Array<[string, () => Promise<Harness>]> = [['pglite', pgliteHarness]];
if (DATABASE_URL) harnesses.push(['postgres', postgresHarness]);

for (const [driver, open] of harnesses) {
  describe(`graph service (${driver})`, () => {
    let h: Harness;
    let graph: GraphService;
    let memory: MemoryService;
    let queue: ReturnType<typeof recordingQueue>;

    before(async () => {
      h = await open();
      queue = recordingQueue();
      const embedding = new EmbeddingScheduler({ queue, indexSync: null, logger, waitMs: 0, autoEdges: false });
      memory = new MemoryService({ db: h.db, embedding, logger });
      graph = new GraphService({ db: h.db, embedding });
    });
    after(async () => {
      await h?.cleanup();
    });

    const count = async (table: string) => (await h.db.query<{ n: number }>(`select count(*)::int as n from ${table}`))[0]!.n;
    const nb = (q: NeighborhoodQuery) => graph.neighborhood(q).then(found);

    test('relate creates named entities once, logs every creation and schedules their embeddings', async () => {
      const txBefore = await latestTxId(h.db);
      const r = await graph.relate([{ subject: 'Payments Service', predicate: 'depends_on', object: 'Postgres' }], 'tester');
      assert.ok(r.txId && r.txId > txBefore);
      assert.equal(r.triples.length, 1);
      const t = r.triples[0]!;
      assert.equal(t.created, true);
      assert.equal(t.subject.name, 'Payments Service');
      assert.equal(t.subject.kind, 'entity');
      assert.equal(t.object.name, 'Postgres');
      assert.equal(t.edge_type, 'Relational');
      assert.equal(t.weight, 1);
      assert.deepEqual(
        r.entitiesCreated.map((e) => e.name),
        ['Payments Service', 'Postgres'],
      );

      const changes = await h.db.query<{ entity: string; entity_id: string; before: unknown; after: Record<string, unknown> }>(
        `select entity, entity_id, before, after from tx_changes where tx_id = $1 order by ord`,
        [r.txId],
      );
      assert.deepEqual(
        changes.map((c) => c.entity),
        ['node', 'node', 'edge'],
      );
      assert.ok(changes.every((c) => c.before === null));
      const edgeImage = changes[2]!.after;
      for (const col of ['id', 'src', 'dst', 'edge_type', 'predicate', 'weight', 'confidence', 'metadata', 'valid_from', 'valid_to', 'created_at', 'deleted_at']) {
        assert.ok(col in edgeImage, `edge image has ${col}`);
      }
      assert.equal(changes[0]!.after.kind, 'entity');
      const [tx] = await h.db.query<{ op: string; actor: string }>(`select op, actor from transactions where tx_id = $1`, [r.txId]);
      assert.deepEqual(tx, { op: 'relate', actor: 'tester' });
      assert.equal(queue.enqueued.length, 1, 'one embedding job for the new entities');

      // Case-insensitive reuse of an entity name within the project.
      const again = await graph.relate([{ subject: 'payments service', predicate: 'owned_by', object: 'Alice' }]);
      assert.equal(again.triples[0]!.subject.id, t.subject.id);
      assert.deepEqual(
        again.entitiesCreated.map((e) => e.name),
        ['Alice'],
      );
      // Another project gets its own entity.
      const other = await graph.relate([{ subject: 'Payments Service', predicate: 'depends_on', object: 'Postgres', project_id: 'other' }]);
      assert.notEqual(other.triples[0]!.subject.id, t.subject.id);
      assert.equal(other.entitiesCreated.length, 2);
    });

    test('a duplicate live triple is returned as existing, not inserted twice', async () => {
      const edgesBefore = await count('edges');
      const txBefore = await latestTxId(h.db);
      const first = await graph.relate([{ subject: 'Kafka', predicate: 'feeds', object: 'Warehouse' }]);
      const dup = await graph.relate([{ subject: 'kafka', predicate: 'FEEDS', object: 'warehouse' }]);
      assert.equal(dup.txId, null, 'nothing written');
      assert.equal(dup.triples[0]!.created, false);
      assert.equal(dup.triples[0]!.id, first.triples[0]!.id);
      assert.equal(await count('edges'), edgesBefore + 1);
      assert.equal(await latestTxId(h.db), txBefore + 1);
      // Within one batch too.
      const batch = await graph.relate([
        { subject: 'Kafka', predicate: 'feeds', object: 'Lake' },
        { subject: 'Kafka', predicate: 'feeds', object: 'Lake' },
      ]);
      assert.deepEqual(
        batch.triples.map((t) => t.created),
        [true, false],
      );
      assert.equal(batch.triples[0]!.id, batch.triples[1]!.id);
    });

    test('entries by id; an unknown id is NODE_NOT_FOUND and a bad triple in a batch writes nothing', async () => {
      const a = await memory.store({ content: 'The checkout page times out under load.', topic: 'checkout timeouts', project_id: 'default', memory_type: 'episodic' });
      const r = await graph.relate([{ subject: a.node.id, predicate: 'caused_by', object: 'connection pool exhaustion', edge_type: 'Causal', weight: 0.7 }]);
      assert.equal(r.triples[0]!.subject.id, a.node.id);
      assert.equal(r.triples[0]!.subject.kind, 'memory');
      assert.equal(r.triples[0]!.subject.name, 'checkout timeouts');
      assert.equal(r.triples[0]!.edge_type, 'Causal');
      assert.ok(Math.abs(r.triples[0]!.weight - 0.7) < 1e-6);

      const nodes = await count('nodes');
      const edges = await count('edges');
      const txs = await count('transactions');
      const missing = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
      const details = await rejectsWith(
        graph.relate([
          { subject: 'Brand New Entity', predicate: 'relates_to', object: a.node.id },
          { subject: 'Another New One', predicate: 'relates_to', object: 'Third New One' },
          { subject: a.node.id, predicate: 'mentions', object: missing },
        ]),
        'NODE_NOT_FOUND',
      );
      assert.deepEqual(details, { id: missing, field: 'object', index: 2 });
      assert.equal(await count('nodes'), nodes, 'no entity survived the failed batch');
      assert.equal(await count('edges'), edges);
      assert.equal(await count('transactions'), txs);

      await rejectsWith(graph.relate([{ subject: 'x', predicate: 'y', object: 'z', valid_from: new Date('2026-02-01'), valid_to: new Date('2026-01-01') }]), 'INVALID_PARAMS');
      await rejectsWith(graph.relate(Array.from({ length: 101 }, (_, i) => ({ subject: `s${i}`, predicate: 'p', object: 'o' }))), 'INVALID_PARAMS');
      assert.equal(await count('nodes'), nodes);
    });

    describe('traversal', () => {
      // A -> B -> C -> A (a cycle), C -> D, E -> A (incoming), A -[part_of, Hierarchical]-> F
      const ids: Record<string, string> = {};
      before(async () => {
        const r = await graph.relate(
          [
            { subject: 'A', predicate: 'calls', object: 'B' },
            { subject: 'B', predicate: 'calls', object: 'C' },
            { subject: 'C', predicate: 'calls', object: 'A' },
            { subject: 'C', predicate: 'writes', object: 'D' },
            { subject: 'E', predicate: 'calls', object: 'A' },
            { subject: 'A', predicate: 'part_of', object: 'F', edge_type: 'Hierarchical' as const },
          ].map((t) => ({ ...t, project_id: 'trav' })),
        );
        for (const e of r.entitiesCreated) ids[e.name] = e.id;
      });
      const names = (n: Neighborhood) => n.nodes.map((x) => `${x.name}@${x.depth}`).sort();
      const q = (extra: Partial<NeighborhoodQuery> = {}) => nb({ node: 'a', projectId: 'trav', ...extra });

      test('depth 1..3 over a cycle visits each node once at its shortest depth', async () => {
        const d1 = await q();
        assert.equal(d1.start.id, ids.A);
        assert.deepEqual(names(d1), ['A@0', 'B@1', 'C@1', 'E@1', 'F@1']);
        assert.equal(d1.triples.length, 4);
        const d2 = await q({ depth: 2 });
        assert.deepEqual(names(d2), ['A@0', 'B@1', 'C@1', 'D@2', 'E@1', 'F@1']);
        assert.equal(d2.triples.length, 6, 'B->C found once though both ends are at depth 1');
        assert.equal(new Set(d2.triples.map((t) => t.id)).size, d2.triples.length);
        const d3 = await q({ depth: 3 });
        assert.deepEqual(names(d3), names(d2));
        assert.equal(d3.truncated, false);
        assert.ok(d3.asOfTxId > 0);
      });

      test('direction out/in and the start by id', async () => {
        const out = await q({ direction: 'out', depth: 3 });
        assert.deepEqual(names(out), ['A@0', 'B@1', 'C@2', 'D@3', 'F@1']);
        const inn = await nb({ node: ids.A!, direction: 'in', depth: 1 });
        assert.deepEqual(names(inn), ['A@0', 'C@1', 'E@1']);
        assert.ok(inn.triples.every((t) => t.object.id === ids.A));
      });

      test('predicate and edge type filters', async () => {
        const calls = await q({ predicates: ['CALLS'], depth: 3 });
        assert.deepEqual(names(calls), ['A@0', 'B@1', 'C@1', 'E@1']);
        assert.ok(calls.triples.every((t) => t.predicate === 'calls'));
        const hier = await q({ edgeTypes: ['Hierarchical'], depth: 2 });
        assert.deepEqual(names(hier), ['A@0', 'F@1']);
      });

      test('limit truncates', async () => {
        const r = await q({ depth: 3, limit: 2 });
        assert.equal(r.triples.length, 2);
        assert.equal(r.truncated, true);
        const reached = new Set(r.triples.flatMap((t) => [t.subject.id, t.object.id]));
        assert.ok(r.nodes.every((n) => reached.has(n.id)));
      });

      test('an unknown start gives trigram suggestions', async () => {
        const r = await graph.neighborhood({ node: 'Paymnts Servce', projectId: 'default' });
        assert.equal(r.found, false);
        const s = (r as StartNotFound).suggestions;
        assert.ok(s.length > 0 && s.length <= 5);
        assert.equal(s[0], 'Payments Service');
        const none = await graph.neighborhood({ node: '01ARZ3NDEKTSV4RRFFQ69G5FAV', projectId: 'nothing-here' });
        assert.deepEqual(none, { found: false, suggestions: [], asOfTxId: await latestTxId(h.db) });
      });
    });

    test('valid_at keeps only facts whose interval contains the instant', async () => {
      await graph.relate(
        [
          { subject: 'Bob', predicate: 'works_at', object: 'Acme', valid_from: new Date('2020-01-01'), valid_to: new Date('2023-01-01') },
          { subject: 'Bob', predicate: 'works_at', object: 'Globex', valid_from: new Date('2023-01-01') },
          { subject: 'Bob', predicate: 'lives_in', object: 'Paris' },
        ].map((t) => ({ ...t, project_id: 'time' })),
      );
      const at = async (iso: string) => (await nb({ node: 'Bob', projectId: 'time', validAt: new Date(iso) })).nodes.map((n) => n.name).sort();
      assert.deepEqual(await at('2021-06-01'), ['Acme', 'Bob', 'Paris']);
      assert.deepEqual(await at('2023-01-01T00:00:00Z'), ['Bob', 'Globex', 'Paris'], 'valid_to is exclusive, valid_from inclusive');
      assert.deepEqual(await at('2019-01-01'), ['Bob', 'Paris']);
      const all = await nb({ node: 'Bob', projectId: 'time' });
      assert.equal(all.triples.length, 3);
      const acme = all.triples.find((t) => t.object.name === 'Acme')!;
      assert.equal(acme.valid_from, '2020-01-01T00:00:00.000Z');
      assert.equal(acme.valid_to, '2023-01-01T00:00:00.000Z');
    });

    test('as_of_tx_id shows the graph before a later relate, including deletions', async () => {
      const first = await graph.relate([{ subject: 'Svc', predicate: 'uses', object: 'Redis', project_id: 'asof' }]);
      const second = await graph.relate([
        { subject: 'Svc', predicate: 'uses', object: 'S3', project_id: 'asof' },
        { subject: 'Redis', predicate: 'runs_on', object: 'Kubernetes', project_id: 'asof' },
      ]);
      assert.ok(first.txId && second.txId && second.txId > first.txId);

      const now = await nb({ node: 'svc', projectId: 'asof', depth: 2 });
      assert.deepEqual(now.nodes.map((n) => n.name).sort(), ['Kubernetes', 'Redis', 'S3', 'Svc']);
      assert.equal(now.asOfTxId, await latestTxId(h.db));

      const then = await nb({ node: 'svc', projectId: 'asof', depth: 2, asOfTxId: first.txId });
      assert.equal(then.asOfTxId, first.txId);
      assert.deepEqual(then.nodes.map((n) => n.name).sort(), ['Redis', 'Svc']);
      assert.equal(then.triples.length, 1);
      assert.equal(then.triples[0]!.predicate, 'uses');
      assert.equal(then.triples[0]!.object.name, 'Redis');

      // Before the entity existed: the start is unknown at that point.
      const before = await graph.neighborhood({ node: 'Svc', projectId: 'asof', asOfTxId: first.txId - 1 });
      assert.equal(before.found, false);
      assert.equal(before.asOfTxId, first.txId - 1);

      // A later tombstone (logged as a write would be) hides the edge now but not as of before it.
      const s3Edge = second.triples[0]!;
      const { writeTransaction, image } = await import('../../src/services/writes.js');
      await writeTransaction(h.db, 'delete', {}, async (tx, log) => {
        const [beforeRow] = await tx.query(`select * from edges where id = $1`, [s3Edge.id]);
        const [afterRow] = await tx.query(`update edges set deleted_at = now() where id = $1 returning *`, [s3Edge.id]);
        log({ entity: 'edge', entityId: s3Edge.id, before: image(beforeRow), after: image(afterRow) });
      });
      const live = await nb({ node: 'Svc', projectId: 'asof' });
      assert.deepEqual(live.nodes.map((n) => n.name).sort(), ['Redis', 'Svc']);
      const asOfSecond = await nb({ node: 'Svc', projectId: 'asof', asOfTxId: second.txId });
      assert.deepEqual(asOfSecond.nodes.map((n) => n.name).sort(), ['Redis', 'S3', 'Svc']);

      await rejectsWith(graph.neighborhood({ node: 'Svc', projectId: 'asof', asOfTxId: 1e9 }), 'INVALID_PARAMS');
    });

    test('listTriples pages live and as-of triples with named ends', async () => {
      const p1 = await graph.listTriples({ limit: 3 });
      assert.equal(p1.items.length, 3);
      assert.ok(p1.nextCursor);
      assert.ok(p1.items.every((t) => t.subject.name && t.object.name));
      const p2 = await graph.listTriples({ limit: 3, afterId: p1.nextCursor });
      assert.ok(p2.items[0]!.id > p1.items[2]!.id);
      const early = await graph.listTriples({ limit: 1000, asOfTxId: 1 });
      assert.equal(early.asOfTxId, 1);
      assert.equal(early.items.length, 1);
      assert.equal(early.items[0]!.subject.name, 'Payments Service');
    });
  });
}
