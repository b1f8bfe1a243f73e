import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AppError } from '../../src/errors.js';
import { CollectionsService } from '../../src/services/collections.js';
import { HistoryService } from '../../src/services/history.js';
import { insertNode } from '../../src/store/nodes-repo.js';
import { newNode } from '../../src/services/writes.js';
import { type Harness, pgliteHarness, postgresHarness } from '../helpers/stores.js';

const drivers: Array<[string, () => Promise<Harness>]> = [['pglite', pgliteHarness]];
if (process.env.DATABASE_URL) drivers.push(['postgres', postgresHarness]);

// The SQL of collections (db/080) on each driver: declarations, figures, undo of a declaration.
for (const [driver, open] of drivers) {
  describe(`collections service (${driver})`, () => {
    let h: Harness;
    let collections: CollectionsService;
    let history: HistoryService;
    before(async () => {
      h = await open();
      collections = new CollectionsService({ db: h.db });
      history = new HistoryService({ db: h.db });
    });
    after(async () => h.cleanup());

    test('figures come from live nodes; undoing a declaration keeps a collection its nodes still use', async () => {
      const made = await collections.create({ project_id: 'p', name: 'docs', description: 'Docs' }, 'tester');
      assert.equal(made.created, true);
      await insertNode(h.db, newNode({ kind: 'chunk', project_id: 'p', collection: 'docs', content: 'héllo', source_uri: 'file://a', metadata: { chunk_size: 40 } }));
      await insertNode(h.db, newNode({ kind: 'memory', project_id: 'p', content: 'plain' }));
      const listed = await collections.list('p');
      assert.deepEqual(
        listed.map((c) => [c.name, c.id !== null, c.memories, c.chunks, c.documents, c.bytes]),
        [
          ['default', false, 1, 0, 0, 5],
          ['docs', true, 0, 1, 1, 6],
        ],
      );
      const m = await collections.metrics({ projectId: 'p', collection: 'docs' });
      assert.deepEqual([m.documentsIndexed, m.chunksIndexed, m.lastChunkSize, m.bytes], [1, 1, 40, 6]);

      const undone = await history.undo({ txId: made.txId }, 'tester');
      assert.deepEqual(undone.entities, [{ entity: 'collection', entity_id: made.collection!.id, change_type: 'delete' }]);
      // Its chunk still names it, so it stays usable (listed as not declared).
      await collections.require('p', 'docs');
      assert.equal((await collections.list('p')).find((c) => c.name === 'docs')?.id, null);
      const redone = await history.undo({ txId: undone.txId }, 'tester');
      assert.equal(redone.op, 'redo');
      assert.equal((await collections.list('p')).find((c) => c.name === 'docs')?.id, made.collection!.id);
    });

    test('an unknown name is INVALID_PARAMS listing the existing ones', async () => {
      await assert.rejects(collections.require('p', 'doc'), (err: unknown) => {
        assert.ok(err instanceof AppError);
        assert.equal(err.code, 'INVALID_PARAMS');
        assert.deepEqual(err.details?.collections, ['default', 'docs']);
        return true;
      });
    });
  });
}
