import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useInProcessApp } from '../helpers/in-memory.js';

// A node deleted for good (a purge, an undo of its `store`) takes its embedding rows with it, so
// the feed never tells the index replica to drop its keys: this process drops them itself. A key
// left behind held a candidate slot in every search that found it, and sat in every snapshot.

const env = useInProcessApp('hard-delete-index', ['curation']);
const call = env.call;

/** Keys per space in this process's indexes, once stores that answered have their vectors in and the replica has read the whole feed. */
async function indexSizes(): Promise<Partial<Record<string, number>>> {
  await env.app.services.pendingVectors.settled();
  await env.app.indexSync.pull();
  return env.app.indexes.sizes();
}

/** Whether the memory's nid is still a key of every space (true), of none (false). */
async function indexed(id: string): Promise<boolean> {
  await env.app.services.pendingVectors.settled();
  const [row] = await env.app.db.query<{ nid: number }>(`select nid from nodes where id = $1`, [id]);
  const nid = row?.nid;
  const [vector] = (await env.app.embedder.embed(['The quarterly audit binder is kept in cabinet seven.'], ['E1'])).get('E1')!;
  const hits = await env.app.indexes.search('E1', vector!, 50);
  return nid !== undefined && hits.some((h) => h.key === nid);
}

test('a purged memory leaves no key in any space of the indexes', async () => {
  await call('store', { content: 'The office coffee machine is descaled every other Monday.' });
  const { id } = await call('store', { content: 'The quarterly audit binder is kept in cabinet seven.' });
  const before = await indexSizes();
  assert.ok(await indexed(id));
  await call('forget_concept', { node_id: id, soft_delete: false, reason: 'user_requested', rationale: 'the user asked to erase it' });
  const afterPurge = await indexSizes();
  assert.ok(!(await indexed(id)), 'its E1 key is gone');
  for (const [space, n] of Object.entries(before)) assert.equal(afterPurge[space], n! - 1, `${space} lost exactly its key`);
});

test('an undone store leaves no key in any space of the indexes', async () => {
  const before = await indexSizes();
  const { id } = await call('store', { content: 'The quarterly audit binder is kept in cabinet seven.' });
  assert.ok(await indexed(id));
  await call('undo', {});
  const afterUndo = await indexSizes();
  assert.deepEqual(afterUndo, before);
  assert.equal((await env.app.db.query(`select 1 from nodes where id = $1`, [id])).length, 0, 'the store was undone');
});
