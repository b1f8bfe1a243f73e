import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEmbedder, type PoolEmbedder } from '../../src/embed/pool.js';
import { createInProcessQueue } from '../../src/jobs/in-process.js';
import type { JobQueue } from '../../src/jobs/queue.js';
import { createLogger } from '../../src/log.js';
import { embedJob, enqueueEmbeddingBacklog } from '../../src/services/embedding.js';
import { newNode } from '../../src/services/writes.js';
import { insertNode } from '../../src/store/nodes-repo.js';
import { coveredModels } from '../../src/store/outbox-repo.js';
import { type Harness, pgliteHarness, postgresHarness } from '../helpers/stores.js';

const logger = createLogger('silent');
const harnesses: Array<[string, () => Promise<Harness>]> = [['pglite', pgliteHarness]];
if (process.env.DATABASE_URL) harnesses.push(['postgres', postgresHarness]);

for (const [driver, open] of harnesses) {
  describe(`embedding backlog at start-up (${driver})`, () => {
    let h: Harness;
    let embedder: PoolEmbedder;
    let queue: JobQueue;
    before(async () => {
      h = await open();
      embedder = await createEmbedder({ logger, threads: 1 });
      // No consumer: what start-up queues just waits, and the job ids say which nodes.
      queue = createInProcessQueue({ logger });
    });
    after(async () => {
      await queue?.close();
      await embedder?.close();
      await h?.cleanup();
    });

    const store = (content: string) => insertNode(h.db, newNode({ kind: 'memory', project_id: 'backlog', content }));
    /** What the embed job does for these nodes: every space's vector, the outbox debt settled. */
    const embed = (nids: number[]) =>
      embedJob.handler({ nids }, { jobId: 'test', attempt: 1, signal: new AbortController().signal, report: async () => {}, deps: { db: h.db, embedder } });
    const startUp = () => enqueueEmbeddingBacklog({ db: h.db, queue, embedder, logger });
    const active = () => new Map(embedder.encoders().map((e) => [e.space, e.modelId]));

    test('a space is searched node by node until it is found complete; then only the outbox can owe, and clearing the record searches again', async () => {
      const a = await store('the pump on line two was replaced in March');
      const b = await store('valve inspection is due every quarter');
      await embed([a.nid]);

      // b was written and its job lost (a crash): it is queued, and no space is recorded complete.
      assert.equal(await startUp(), 1);
      assert.deepEqual(await coveredModels(h.db), new Map());

      await embed([b.nid]);
      assert.equal(await startUp(), 0);
      assert.deepEqual(await coveredModels(h.db), active(), 'every space recorded with its active model');

      // With every space recorded, a new write's lost job is still found: it owes in the outbox.
      const c = await store('the night shift logs pressure readings hourly');
      assert.equal(await startUp(), 1);
      await embed([c.nid]);

      // A vector gone without a debt (edited by hand) is not looked for while the record stands ...
      await h.db.query(`delete from embeddings where node_nid = $1 and space = 'E1'`, [a.nid]);
      assert.equal(await startUp(), 0);
      // ... and is found once the record is cleared, which is what the migration tells an operator.
      await h.db.query(`delete from embedding_coverage`);
      assert.equal(await startUp(), 1);
      await embed([a.nid]);
      assert.equal(await startUp(), 0);
      assert.deepEqual(await coveredModels(h.db), active());
    });

    test('a space whose model changed is searched in full and re-embedded, and recorded under the new model once complete', async () => {
      const stored = [await store('compressor oil was topped up'), await store('the east gate sensor reads low')];
      await embed(stored.map((n) => n.nid));
      assert.equal(await startUp(), 0);
      const live = Number((await h.db.query<{ n: number }>(`select count(*)::int as n from nodes where deleted_at is null`))[0]!.n);
      // Every vector of E5 written under an older model, which the record still names.
      await h.db.query(`update embeddings set model_id = 'older-model' where space = 'E5'`);
      await h.db.query(`update embedding_coverage set model_id = 'older-model' where space = 'E5'`);

      assert.equal(await startUp(), live, 'every live node lacks E5 under the active model');
      assert.equal((await coveredModels(h.db)).get('E5'), 'older-model', 'not recorded while nodes lack it');
      const all = (await h.db.query<{ nid: number }>(`select nid from nodes where deleted_at is null`)).map((r) => Number(r.nid));
      await embed(all);
      assert.equal(await startUp(), 0);
      assert.equal((await coveredModels(h.db)).get('E5'), active().get('E5'));
    });
  });
}
