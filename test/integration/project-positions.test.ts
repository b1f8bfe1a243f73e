import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ulid } from 'ulid';
import type { Db } from '../../src/store/db.js';
import { projectPositions } from '../../src/store/positions-repo.js';
import { pgliteHarness, type Harness } from '../helpers/stores.js';

// E4 encodes each memory's order in its project. Positions are counted from a remembered anchor
// instead of from the project's start; they must be the numbers a full count gives.
let h: Harness;
before(async () => {
  h = await pgliteHarness();
});
after(() => h.cleanup());

async function insert(db: Db, projects: readonly string[]): Promise<Array<{ nid: number; project_id: string }>> {
  return db.query<{ nid: number; project_id: string }>(
    `insert into nodes (id, project_id, memory_type, content, tags, content_hash)
     select u.id, u.project, 'semantic', 'turn ' || u.ord, '{}', md5(u.id)
       from unnest($1::text[], $2::text[]) with ordinality as u(id, project, ord) order by u.ord
     returning nid, project_id`,
    [projects.map(() => ulid()), projects],
  );
}

/** What each position means: how many nodes of its project came before it, deleted ones included. */
async function counted(db: Db, nodes: ReadonlyArray<{ nid: number; project_id: string }>): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (const n of nodes) {
    const [row] = await db.query<{ c: number }>(`select count(*)::int as c from nodes where project_id = $1 and nid < $2`, [n.project_id, n.nid]);
    out.set(Number(n.nid), Number(row!.c));
  }
  return out;
}

test('positions of interleaved projects, with and without an anchor, equal a full count', async () => {
  const first = await insert(h.db, ['a', 'b', 'a', 'a', 'b']);
  await h.db.query(`update nodes set deleted_at = now() where nid = $1`, [first[2]!.nid]);
  const second = await insert(h.db, ['b', 'a', 'a', 'b', 'a']);
  const expected = await counted(h.db, second);
  const pick = (m: Map<number, number>, of = second) => new Map(of.map((n) => [Number(n.nid), m.get(Number(n.nid))]));

  assert.deepEqual(pick(await projectPositions(h.db, second)), expected, 'no anchor: counted from the start');
  const lastA = first.filter((n) => n.project_id === 'a').at(-1)!;
  const anchors = new Map([['a', { nid: Number(lastA.nid), position: (await counted(h.db, [lastA])).get(Number(lastA.nid))! }]]);
  assert.deepEqual(pick(await projectPositions(h.db, second, anchors)), expected, 'anchored at an earlier node of a');
  // An anchor after the batch (re-embedding old nodes) is not used.
  const late = new Map([['a', { nid: Number(second.at(-1)!.nid) + 100, position: 99 }]]);
  const old = first.slice(0, 2);
  assert.deepEqual(pick(await projectPositions(h.db, old, late), old), await counted(h.db, old));
});

test('a one-project batch (every store) gets the same numbers, with and without an anchor', async () => {
  const before = await insert(h.db, ['c', 'c', 'd', 'c']);
  const batch = (await insert(h.db, ['c', 'd', 'c', 'c'])).filter((n) => n.project_id === 'c');
  const expected = await counted(h.db, batch);
  assert.deepEqual(await projectPositions(h.db, batch), expected, 'no anchor');
  const anchor = before.filter((n) => n.project_id === 'c').at(-1)!;
  const anchors = new Map([['c', { nid: Number(anchor.nid), position: (await counted(h.db, [anchor])).get(Number(anchor.nid))! }]]);
  assert.deepEqual(await projectPositions(h.db, batch, anchors), expected, 'anchored');
  const one = batch.slice(-1);
  assert.deepEqual(await projectPositions(h.db, one, anchors), await counted(h.db, one), 'one node, as a store embeds it');
});
