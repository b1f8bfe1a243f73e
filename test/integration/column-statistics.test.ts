import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newNode, writeTransaction } from '../../src/services/writes.js';
import { upsertFingerprints } from '../../src/store/fingerprints-repo.js';
import { insertNode, type NodeRecord } from '../../src/store/nodes-repo.js';
import { pgliteHarness, postgresHarness, type Harness } from '../helpers/stores.js';

const backends: Array<[string, () => Promise<Harness>]> = [['PGlite', pgliteHarness]];
if (process.env.DATABASE_URL) backends.push(['Postgres', postgresHarness]);

/** The columns of `table` that the last ANALYZE left statistics for. */
async function analyzedColumns(h: Harness, table: string): Promise<string[]> {
  const rows = await h.db.query<{ attname: string }>(`select attname from pg_stats where schemaname = current_schema() and tablename = $1 order by attname`, [table]);
  return rows.map((r) => r.attname);
}

for (const [name, open] of backends) {
  describe(`column statistics on ${name}`, () => {
    test('ANALYZE skips the arrays, images and vectors no query filters on, and keeps the columns queries do', async () => {
      const h = await open();
      try {
        const nodes: NodeRecord[] = [];
        for (let i = 0; i < 40; i++) nodes.push(await insertNode(h.db, newNode({ kind: 'memory', project_id: i % 2 ? 'a' : 'b', content: `Memory number ${i}.` })));
        await h.db.transaction((tx) =>
          upsertFingerprints(
            tx,
            nodes.map((n, i) => ({
              node_nid: n.nid,
              project_id: n.project_id,
              model_key: 'm',
              spaces: ['E1', 'E5'],
              purpose: [i / 40, 0.5],
              surprise: [0.1, 0.2],
              coherence: [0.3, 0.4],
              johari: ['open', 'blind'],
              learning: i / 40,
              stage: 'growth',
            })),
          ),
        );
        await writeTransaction(h.db, 'store', { actor: 'test' }, async (_tx, log) => {
          for (const n of nodes) log({ entity: 'node', entityId: n.id, before: null, after: { id: n.id, content: n.content } });
        });
        await h.db.query('analyze fingerprints, tx_changes, nodes');

        const fingerprints = await analyzedColumns(h, 'fingerprints');
        for (const skipped of ['spaces', 'purpose', 'surprise', 'coherence', 'johari']) assert.ok(!fingerprints.includes(skipped), `fingerprints.${skipped} analyzed`);
        for (const kept of ['node_nid', 'project_id', 'model_key', 'learning']) assert.ok(fingerprints.includes(kept), `fingerprints.${kept} not analyzed`);
        const changes = await analyzedColumns(h, 'tx_changes');
        assert.ok(!changes.includes('before') && !changes.includes('after'), `tx_changes analyzed: ${changes.join(', ')}`);
        assert.ok(changes.includes('entity_id'));
        // Nothing else changed: every column of nodes still gets its statistics.
        assert.ok((await analyzedColumns(h, 'nodes')).includes('tags'));
      } finally {
        await h.cleanup();
      }
    });
  });
}
