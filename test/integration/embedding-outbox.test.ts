import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createInProcessQueue } from '../../src/jobs/in-process.js';
import type { JobQueue } from '../../src/jobs/queue.js';
import { createLogger } from '../../src/log.js';
import { EmbeddingOutbox } from '../../src/services/embedding-outbox.js';
import { contentHash, newNode } from '../../src/services/writes.js';
import { insertNode, rewriteContent, softDeleteNodes } from '../../src/store/nodes-repo.js';
import { claimOwedEmbeddings, renewOwedEmbeddings, settleOwedEmbeddings } from '../../src/store/outbox-repo.js';
import { type Harness, pgliteHarness, postgresHarness } from '../helpers/stores.js';

const logger = createLogger('silent');
const harnesses: Array<[string, () => Promise<Harness>]> = [['pglite', pgliteHarness]];
if (process.env.DATABASE_URL) harnesses.push(['postgres', postgresHarness]);

/** Leases of 0: every owed row counts as lost at once, so one drain re-enqueues it. */
const AT_ONCE = { intervalMs: 60_000, idleLeaseMs: 0, busyLeaseMs: 0, batch: 2 };
const NEVER = { ...AT_ONCE, idleLeaseMs: 3_600_000, busyLeaseMs: 3_600_000 };

for (const [driver, open] of harnesses) {
  describe(`embedding outbox (${driver})`, () => {
    let h: Harness;
    let queue: JobQueue;
    before(async () => {
      h = await open();
      // No consumer: enqueued jobs just wait, so the counts show what was dispatched.
      queue = createInProcessQueue({ logger });
    });
    after(async () => {
      await queue?.close();
      await h?.cleanup();
    });

    test('every node write owes its vectors, a drain re-enqueues lost debts, the embed job settles them', async () => {
      const { db } = h;
      const nodes = [];
      for (let i = 0; i < 5; i++) nodes.push(await insertNode(db, newNode({ kind: 'memory', project_id: 'p', content: `owed ${i}` })));
      const outbox = new EmbeddingOutbox({ db, queue, logger }, AT_ONCE);
      assert.equal((await outbox.depth()).depth, 5, 'the trigger wrote one debt per node');

      assert.equal(await new EmbeddingOutbox({ db, queue, logger }, NEVER).drain(), 0, 'debts within their lease are left to the writer');
      assert.equal(await outbox.drain(), 5, 'presumed-lost debts are re-enqueued, in batches');
      assert.equal((await queue.counts()).waiting, 3, 'batches of 2: three jobs');

      // The job embedded version 1 of node 0; meanwhile node 1 got new text: version 1 no longer settles it.
      const edited = await rewriteContent(db, nodes[1]!.nid, 'owed 1, edited', contentHash('owed 1, edited'), {});
      await settleOwedEmbeddings(
        db,
        nodes.slice(0, 2).map((n) => ({ nid: n.nid, version: n.version })),
      );
      assert.equal((await outbox.depth()).depth, 4, 'node 0 settled; node 1 still owes its new version');
      await settleOwedEmbeddings(db, [{ nid: edited.nid, version: edited.version }]);
      // A deleted node owes nothing new; its old debt is settled by the job (which finds it deleted).
      await softDeleteNodes(db, [nodes[2]!.id]);
      await settleOwedEmbeddings(db, [{ nid: nodes[2]!.nid, version: nodes[2]!.version + 1 }]);
      assert.equal((await outbox.depth()).depth, 2);
    });

    test('a renewed lease is not presumed lost (a pipelined import renews its waiting jobs, so none is embedded twice)', async () => {
      const { db } = h;
      const nodes = [];
      for (let i = 0; i < 3; i++) nodes.push(await insertNode(db, newNode({ kind: 'memory', project_id: 'renew', content: `leased ${i}` })));
      const nids = nodes.map((n) => n.nid);
      const LEASE = { ...AT_ONCE, idleLeaseMs: 400, busyLeaseMs: 400 };
      await new Promise((r) => setTimeout(r, 500));
      // Past the lease since their write: the first two are renewed by their writer, the third is not.
      await renewOwedEmbeddings(db, nids.slice(0, 2));
      const claimed = await claimOwedEmbeddings(db, { graceMs: LEASE.idleLeaseMs, leaseMs: LEASE.busyLeaseMs, limit: 100, afterNid: Math.min(...nids) - 1 });
      assert.deepEqual(
        claimed.map((c) => Number(c.nid)),
        [nids[2]],
      );
      await settleOwedEmbeddings(
        db,
        nodes.map((n) => ({ nid: n.nid, version: n.version })),
      );
    });
  });
}
