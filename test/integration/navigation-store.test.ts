import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEmbedder, type PoolEmbedder } from '../../src/embed/pool.js';
import { createInProcessQueue } from '../../src/jobs/in-process.js';
import { createLogger } from '../../src/log.js';
import { hyperbolicFitJob } from '../../src/services/navigation/hyperbolic-job.js';
import { linkJob } from '../../src/services/navigation/link-job.js';
import { NavigationService } from '../../src/services/navigation/navigation.js';
import { scannedNearest } from '../../src/services/navigation/nearest.js';
import { image, newNode, writeTransaction } from '../../src/services/writes.js';
import { writeEmbeddings } from '../../src/store/embeddings-repo.js';
import { insertNode, type NodeRecord } from '../../src/store/nodes-repo.js';
import { pgliteHarness, postgresHarness, type Harness } from '../helpers/stores.js';

const logger = createLogger('silent');
const stores: Array<[string, () => Promise<Harness>]> = [['PGlite', pgliteHarness]];
if (process.env.DATABASE_URL) stores.push(['Postgres', postgresHarness]);

// The worker's path: no index replica, neighbours from an exact scan of stored vectors.
for (const [name, open] of stores) {
  describe(`link and hyperbolic-fit jobs on ${name} (worker path)`, () => {
    let h: Harness;
    let embedder: PoolEmbedder;
    const queue = createInProcessQueue();
    before(async () => {
      h = await open();
      embedder = await createEmbedder({ logger, threads: 1 });
    });
    after(async () => {
      await queue.close();
      await embedder.close();
      await h.cleanup();
    });

    async function remember(content: string, extra: { tags?: string[]; minute: number }): Promise<NodeRecord> {
      const { result } = await writeTransaction(h.db, 'store', {}, async (tx, log) => {
        const n = await insertNode(
          tx,
          newNode({ kind: 'memory', project_id: 'p', content, source_uri: 'chat://one', tags: extra.tags ?? [], valid_from: new Date(Date.UTC(2026, 0, 1, 10, extra.minute)) }),
        );
        log({ entity: 'node', entityId: n.id, before: null, after: image(n) });
        return n;
      });
      const vectors = await embedder.embed([content]);
      await writeEmbeddings(
        h.db,
        embedder.encoders().map((e) => ({ nid: result.nid, space: e.space, modelId: e.modelId, vector: vectors.get(e.space)![0]! })),
      );
      return result;
    }

    test('edges from text, a causal chain, neighbours and cones', async () => {
      const a = await remember('The nightly database migration locked the users table for ten minutes.', { minute: 0 });
      const b = await remember('The Friday deploy failed because the database migration locked the users table.', { minute: 1, tags: ['incidents'] });
      const c = await remember('So the team rolled back the release on Sunday morning.', { minute: 2 });
      await remember('A rollback is a kind of deployment.', { minute: 3 });
      const deps = { db: h.db, embedder, nearest: scannedNearest(h.db), queue, logger };
      const run = () => linkJob.handler({ project_id: 'p' }, { jobId: 'test-link', attempt: 1, signal: new AbortController().signal, report: async () => {}, deps });
      const first = await run();
      assert.equal(first.memories, 4);
      assert.deepEqual([first.created.Temporal, first.created.Causal >= 2, first.created.Hierarchical], [3, true, 2]);
      assert.deepEqual((await run()).created, { Semantic: 0, Temporal: 0, Causal: 0, Hierarchical: 0 }, 'idempotent');

      const nav = new NavigationService({ db: h.db, queue });
      const path = await nav.causalPath({ sourceId: a.id, targetId: c.id, maxHops: 5, direction: 'forward' });
      assert.deepEqual(
        path.path.map((n) => n.id),
        [a.id, b.id, c.id],
      );
      const around = await nav.neighbourhood({ nodeId: b.id, depth: 1, edgeTypes: ['Hierarchical'], minWeight: 0.3, limit: 10 });
      assert.deepEqual(
        around.neighbours.map((n) => [n.name, n.predicate, n.direction]),
        [['incidents', 'tagged', 'outgoing']],
      );

      const fit = await hyperbolicFitJob.handler(
        { project_id: 'p', space: 'E1' },
        { jobId: 'test-fit', attempt: 1, signal: new AbortController().signal, report: async () => {}, deps: { db: h.db } },
      );
      assert.deepEqual([fit.points, fit.unentailed_pairs], [4, 0]);
      const coords = async () =>
        (await h.db.query<{ node_id: string; coords: number[]; job_id: string }>(`select node_id, coords, job_id from hyperbolic_coords order by node_id`)).map((r) => ({
          ...r,
          coords: r.coords.map(Number),
        }));
      const inThread = await coords();
      // A second fit of the same hierarchy (a burst queues one per change) finds it done and rewrites nothing.
      const again = await hyperbolicFitJob.handler(
        { project_id: 'p', space: 'E1' },
        { jobId: 'test-fit-again', attempt: 1, signal: new AbortController().signal, report: async () => {}, deps: { db: h.db, embedder } },
      );
      assert.deepEqual([again.already_fitted, again.points, again.pairs], [true, 4, undefined]);
      assert.deepEqual(await coords(), inThread);
      // On the math thread (what the app's job runs): the same coordinates as in this thread.
      await h.db.query(`delete from hyperbolic_coords`);
      const onThread = await hyperbolicFitJob.handler(
        { project_id: 'p', space: 'E1' },
        { jobId: 'test-fit', attempt: 1, signal: new AbortController().signal, report: async () => {}, deps: { db: h.db, embedder } },
      );
      assert.deepEqual([onThread.points, onThread.unentailed_pairs, onThread.pairs], [4, 0, fit.pairs]);
      assert.deepEqual(await coords(), inThread);
      const cones = await nav.entailment({ nodeId: b.id, space: 'E1', direction: 'ancestors', limit: 10 });
      assert.ok(cones.fitted);
      assert.deepEqual(
        cones.ancestors.map((m) => m.name),
        ['incidents'],
      );
    });
  });
}
