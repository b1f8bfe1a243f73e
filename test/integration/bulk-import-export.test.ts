import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../../src/log.js';
import { EmbeddingScheduler } from '../../src/services/embedding-scheduler.js';
import { ExportService, type ExportLine, type ExportSection } from '../../src/services/export.js';
import { GraphService } from '../../src/services/graph.js';
import { ImportService } from '../../src/services/import.js';
import { MemoryService } from '../../src/services/memory.js';
import type { JobQueue } from '../../src/jobs/queue.js';
import { type Harness, pgliteHarness, postgresHarness } from '../helpers/stores.js';

// One suite, both drivers: PGlite always, Postgres when DATABASE_URL is set.

const logger = createLogger('silent');

/** A queue that accepts jobs and runs none: these tests look at rows, not vectors. */
function idleQueue(): JobQueue {
  return {
    backend: 'in-process',
    async enqueue(_name: string, _payload: unknown, opts?: { jobId?: string }) {
      return { id: opts?.jobId ?? 'job', finished: async () => undefined };
    },
  } as unknown as JobQueue;
}

interface Store {
  h: Harness;
  imports: ImportService;
  exports: ExportService;
  memory: MemoryService;
  graph: GraphService;
}

async function openStore(open: () => Promise<Harness>): Promise<Store> {
  const h = await open();
  const embedding = new EmbeddingScheduler({ queue: idleQueue(), indexSync: null, logger, waitMs: 0 });
  return {
    h,
    imports: new ImportService({ db: h.db, embedding }),
    exports: new ExportService(h.db),
    memory: new MemoryService({ db: h.db, embedding, logger }),
    graph: new GraphService({ db: h.db, embedding }),
  };
}

/** Every line of an export, read in pages of 2 so the keyset paging is exercised. */
async function exportAll(s: Store, asOfTxId: number | null = null, projectId: string | null = null): Promise<string> {
  const out: ExportLine[] = [];
  for (const section of ['memories', 'edges'] as ExportSection[]) {
    let after: string | null = null;
    do {
      const page = await s.exports.page(section, { after, limit: 2, projectId, asOfTxId });
      out.push(...page.lines);
      after = page.next;
    } while (after !== null);
  }
  return out.map((l) => JSON.stringify(l)).join('\n');
}

const harnesses: Array<[string, () => Promise<Harness>]> = [['pglite', pgliteHarness]];
if (process.env.DATABASE_URL) harnesses.push(['postgres', postgresHarness]);

for (const [driver, open] of harnesses) {
  describe(`bulk import and export (${driver})`, () => {
    let a: Store;
    let b: Store;
    before(async () => {
      a = await openStore(open);
      b = await openStore(open);
    });
    after(async () => {
      await a?.h.cleanup();
      await b?.h.cleanup();
    });

    const count = async (s: Store, table: string) => (await s.h.db.query<{ n: number }>(`select count(*)::int as n from ${table}`))[0]!.n;

    test('round trip: export, import into an empty store, export again gives the same lines', async () => {
      const stored = await a.memory.store({
        content: 'Invoices are sent on the first working day.',
        project_id: 'billing',
        memory_type: 'procedural',
        tags: ['finance'],
        importance: 0.9,
      });
      await a.memory.store({ content: 'The office closes at six.', project_id: 'default', memory_type: 'semantic' });
      await a.graph.relate([{ subject: stored.node.id, predicate: 'owned_by', object: 'Finance team', project_id: 'billing', edge_type: 'Hierarchical' }]);
      const r = await a.imports.importBatch([
        { type: 'entity', name: 'Grace', entity_type: 'person' },
        { type: 'memory', content: 'Owns the scheduler', observation_of: 'Grace' },
        { type: 'relation', from: 'Grace', to: 'Scheduler', relation_type: 'maintains' },
        { type: 'document', text: 'First sentence here. Second sentence there.', source_uri: 'file:///doc.md', chunk_size: 16 },
      ]);
      assert.equal(r.rejected, 0, JSON.stringify(r.rejections));
      assert.ok(r.txId > 0);
      const first = await exportAll(a);
      const asOf = await a.exports.latestTxId();
      assert.equal(await exportAll(a, asOf), first, 'the log as of the latest transaction reads the same as the live tables');

      const lines = first.split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      const back = await b.imports.importBatch(lines);
      assert.equal(back.rejected, 0, JSON.stringify(back.rejections));
      assert.equal(back.inserted, lines.length);
      assert.equal(await exportAll(b), first);

      // Writes after the snapshot do not show in an export as of it.
      await a.memory.store({ content: 'Written after the snapshot.', project_id: 'default', memory_type: 'semantic' });
      assert.equal(await exportAll(a, asOf), first);
      assert.ok((await exportAll(a, null, 'billing')).split('\n').every((l) => !l.includes('"project_id":"default"')));
    });

    test('a re-run skips everything; a dry run counts without writing; bad records are rejected by index', async () => {
      const records = [
        { type: 'memory', content: 'Skipped the second time.' },
        { type: 'edge', src: '01J9Z8Q4M6W2X7V5T3R1P0N8K6', dst: '01J9Z8Q4M6W2X7V5T3R1P0N8K7', predicate: 'x' },
        { type: 'nope' },
      ];
      const nodes = await count(b, 'nodes');
      const dry = await b.imports.importBatch(records, { dryRun: true });
      assert.deepEqual([dry.inserted, dry.skipped, dry.rejected, dry.txId], [1, 0, 2, 0]);
      assert.equal(await count(b, 'nodes'), nodes, 'a dry run writes nothing');
      assert.deepEqual(
        dry.rejections.map((x) => x.index),
        [1, 2],
      );
      assert.match(dry.rejections[0]!.reason, /not found/);

      const first = await b.imports.importBatch(records);
      assert.equal(first.inserted, 1);
      const again = await b.imports.importBatch(records);
      assert.deepEqual([again.inserted, again.skipped, again.txId], [0, 1, 0]);
      assert.equal(await count(b, 'nodes'), nodes + 1);
    });

    test('a changed document at the same source is rewritten in place, and the batch is one undoable transaction', async () => {
      const doc = { type: 'document', text: 'Alpha beta gamma.', source_uri: 'file:///changing.md' };
      const first = await b.imports.importBatch([doc]);
      assert.equal(first.inserted, 1);
      const changed = await b.imports.importBatch([{ ...doc, text: 'Alpha beta delta.' }]);
      assert.deepEqual([changed.inserted, changed.updated], [0, 1]);
      const [tx] = await b.h.db.query<{ op: string; n: number }>(
        `select t.op, count(c.*)::int as n from transactions t join tx_changes c using (tx_id) where t.tx_id = $1 group by t.op`,
        [changed.txId],
      );
      assert.deepEqual(tx, { op: 'import', n: 1 });
    });
  });
}
