import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ulid } from 'ulid';
import { createEmbedder, type PoolEmbedder } from '../../src/embed/pool.js';
import { IndexSync } from '../../src/index/sync.js';
import { createVectorIndexes } from '../../src/index/usearch-host.js';
import type { VectorIndexes } from '../../src/index/vector-index.js';
import { createLogger } from '../../src/log.js';
import { filteredCandidates, type SearchFilters } from '../../src/services/candidates.js';
import { lexicalSearch, SearchService } from '../../src/services/search.js';
import type { Db } from '../../src/store/db.js';
import { writeEmbeddings } from '../../src/store/embeddings-repo.js';
import { pgliteHarness, postgresHarness, type Harness } from '../helpers/stores.js';
import { mulberry32 } from '../helpers/prng.js';

/**
 * The contract: a filter never loses a match. A small project (3 entries) sits in a store whose
 * other project holds thousands of entries that match the query better, so a global top-k,
 * filtered afterwards, holds none of the small project's entries at any ordinary depth.
 */
const logger = createLogger('silent');
const BIG = 3_000;
const QUERY = 'deployment rollback runbook';
const SERVICES = ['billing', 'search', 'auth', 'gateway', 'ledger', 'mailer', 'reports', 'uploads'];

interface Row {
  project: string;
  content: string;
  memoryType?: string;
  tags?: string[];
  createdAt?: Date;
}

function corpus(): Row[] {
  const next = mulberry32(7);
  const rows: Row[] = [];
  for (let i = 0; i < BIG; i++) {
    // Short texts made of the query's own words: BM25 and both dense spaces rank them first.
    const service = SERVICES[Math.floor(next() * SERVICES.length)]!;
    rows.push({ project: 'big', content: `${QUERY} for ${service} ${i}` });
  }
  // The small project: one entry on the subject, written the long way, and two unrelated ones.
  rows.push({
    project: 'tiny',
    content: 'Notes from the payments team: the deployment rollback runbook lives in the wiki, and whoever is on call reads it before any Friday release.',
  });
  rows.push({ project: 'tiny', content: 'Lunch order for the offsite: twelve vegetarian, four vegan, nothing with peanuts.' });
  rows.push({ project: 'tiny', content: 'The office plants are watered on Mondays and Thursdays.' });
  // Rare facets inside the big project, each on one long-winded entry about the subject.
  const longWinded = (what: string) => `A ${what} remark, for the record: our deployment rollback runbook was reviewed twice this quarter and nobody objected to it.`;
  rows.push({ project: 'big', content: longWinded('procedural'), memoryType: 'procedural' });
  rows.push({ project: 'big', content: longWinded('tagged'), tags: ['rare-tag'] });
  rows.push({ project: 'big', content: longWinded('historical'), createdAt: new Date('2020-03-01T12:00:00Z') });
  return rows;
}

async function insert(db: Db, rows: readonly Row[]): Promise<number[]> {
  const out = await db.query<{ nid: number }>(
    `insert into nodes (id, project_id, memory_type, content, tags, content_hash, created_at)
     select u.id, u.project, u.type, u.content, array(select jsonb_array_elements_text(u.tags)), md5(u.content), coalesce(u.created, now())
       from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::timestamptz[]) with ordinality
         as u(id, project, type, content, tags, created, ord)
      order by u.ord
     returning nid`,
    [
      rows.map(() => ulid()),
      rows.map((r) => r.project),
      rows.map((r) => r.memoryType ?? 'semantic'),
      rows.map((r) => r.content),
      rows.map((r) => JSON.stringify(r.tags ?? [])),
      rows.map((r) => r.createdAt ?? null),
    ],
  );
  return out.map((r) => r.nid);
}

function suite(name: string, harness: () => Promise<Harness>, skip: string | false): void {
  describe(`filtered search never loses a match: ${name}`, { skip }, () => {
    let h: Harness;
    let embedder: PoolEmbedder;
    let indexes: VectorIndexes;
    let sync: IndexSync;
    let search: SearchService;
    let rows: Row[];
    let nids: number[];
    const nidOf = (pick: (r: Row) => boolean) => nids[rows.findIndex(pick)]!;

    before(async () => {
      h = await harness();
      embedder = await createEmbedder({ logger, threads: 2 });
      indexes = createVectorIndexes();
      const specs = embedder.encoders().map((e) => ({ space: e.space, dim: e.dim, modelId: e.modelId }));
      for (const spec of specs) await indexes.ensure(spec);
      rows = corpus();
      nids = await insert(h.db, rows);
      const vectors = await embedder.embed(rows.map((r) => r.content));
      for (const e of embedder.encoders()) {
        await writeEmbeddings(
          h.db,
          vectors.get(e.space)!.map((vector, i) => ({ nid: nids[i]!, space: e.space, modelId: e.modelId, vector })),
        );
      }
      sync = new IndexSync(h.db, indexes, specs, logger);
      await sync.start(0);
      search = new SearchService({ db: h.db, embedder, indexes });
    });

    after(async () => {
      await sync?.stop();
      await indexes?.close();
      await embedder?.close();
      await h?.cleanup();
    });

    test('the setup buries the small project: no global signal has it in its top 200', async () => {
      const tiny = nidOf((r) => r.project === 'tiny');
      const lexical = await lexicalSearch(embedder, indexes, QUERY, 200);
      assert.equal(lexical.length, 200);
      assert.ok(!lexical.some((h) => h.key === tiny));
      for (const space of ['E1', 'E9'] as const) {
        const [v] = (await embedder.embed([QUERY], [space])).get(space)!;
        assert.ok(!(await indexes.search(space, v!, 200)).some((h) => h.key === tiny), space);
      }
      // Unfiltered search at the tools' usual limits therefore never shows it.
      assert.ok(!(await search.hybrid({ text: QUERY, limit: 50 })).hits.some((h) => h.node.nid === tiny));
    });

    const cases: Array<{ what: string; filters: SearchFilters; target: (r: Row) => boolean }> = [
      { what: 'project', filters: { projectId: 'tiny' }, target: (r) => r.project === 'tiny' },
      { what: 'memory_type', filters: { memoryType: 'procedural' }, target: (r) => r.memoryType === 'procedural' },
      { what: 'tags', filters: { tags: ['rare-tag', 'absent-tag'] }, target: (r) => Boolean(r.tags?.includes('rare-tag')) },
      { what: 'time range', filters: { timeRange: { start: new Date('2020-01-01T00:00:00Z'), end: new Date('2020-12-31T00:00:00Z') } }, target: (r) => Boolean(r.createdAt) },
    ];
    for (const c of cases) {
      test(`${c.what} filter: the matching entry is the first hit at every limit from 1 to 5`, async () => {
        const target = nidOf(c.target);
        for (let limit = 1; limit <= 5; limit++) {
          const { hits, matched } = await search.hybrid({ text: QUERY, limit, ...c.filters });
          assert.equal(hits[0]?.node.nid, target, `limit ${limit}`);
          assert.ok(hits.length <= limit);
          assert.ok(matched >= 1);
          // Ranks are ranks among the allowed entries.
          assert.equal(hits[0].signals.lexical?.rank, 1);
        }
      });
    }

    test('a filter combined with a threshold and a kind exclusion still finds the entry', async () => {
      const { hits } = await search.hybrid({ text: QUERY, limit: 3, projectId: 'tiny', excludeKinds: ['entity'], scoreThreshold: 0.25 });
      assert.equal(
        hits[0]?.node.nid,
        nidOf((r) => r.project === 'tiny'),
      );
      assert.ok(hits.every((h) => h.node.project_id === 'tiny'));
    });

    test('strategies: a selective filter scores its few entries exactly; a broad one filters the global lists', async () => {
      const [v] = (await embedder.embed([QUERY], ['E1'])).get('E1')!;
      const signal = [{ name: 'E1', space: 'E1' as const, vector: v! }];
      const tiny = await filteredCandidates({ db: h.db, indexes }, signal, { projectId: 'tiny' }, 50);
      assert.equal(tiny.strategy, 'among');
      assert.equal(tiny.lists[0]!.length, 3);
      const broad = await filteredCandidates({ db: h.db, indexes }, signal, { projectId: 'big' }, 50);
      assert.equal(broad.strategy, 'global');
      assert.equal(broad.lists[0]!.length, 50);
    });

    test('past the exact-scoring bound, widening the global search finds the same entries', async () => {
      const [v] = (await embedder.embed([QUERY], ['E1'])).get('E1')!;
      const signal = [{ name: 'E1', space: 'E1' as const, vector: v! }];
      const exact = await filteredCandidates({ db: h.db, indexes }, signal, { projectId: 'tiny' }, 50);
      // With a bound of 1, three allowed entries are "many": the search widens until exhausted.
      const widened = await filteredCandidates({ db: h.db, indexes }, signal, { projectId: 'tiny' }, 50, { amongMax: 1 });
      assert.equal(widened.strategy, 'global');
      assert.deepEqual(
        widened.lists[0]!.map((h) => h.key),
        exact.lists[0]!.map((h) => h.key),
      );
      for (let i = 0; i < 3; i++) assert.ok(Math.abs(widened.lists[0]![i]!.similarity - exact.lists[0]![i]!.similarity) < 0.01);
    });

    test('an unfiltered search whose best candidates were deleted behind the indexes still finds the live match', async () => {
      // Deleted in the store only: the indexes still hold every big-project entry, as they do for
      // the moment between a deletion and its retraction reaching the index thread.
      const deleted = await h.db.query<{ nid: number }>(`update nodes set deleted_at = now() where project_id = 'big' and deleted_at is null returning nid`);
      try {
        const { hits } = await search.hybrid({ text: QUERY, limit: 3 });
        assert.equal(
          hits[0]?.node.nid,
          nidOf((r) => r.project === 'tiny'),
        );
        assert.ok(
          hits.every((h) => h.node.project_id === 'tiny'),
          'no deleted entry is served',
        );
      } finally {
        await h.db.query(`update nodes set deleted_at = null where nid = any($1::bigint[])`, [deleted.map((r) => r.nid)]);
      }
    });

    test('near duplicates are looked for inside the project however crowded the store is', async () => {
      const tiny = nidOf((r) => r.project === 'tiny');
      const text = rows.find((r) => r.project === 'tiny')!.content;
      const near = await search.nearDuplicatesOf((await search.duplicateVector(text))!, { projectId: 'tiny', excludeNid: -1, minSimilarity: 0.9, limit: 3 });
      assert.deepEqual(
        near.map((n) => n.node.nid),
        [tiny],
      );
    });

    test('timing: filtered searches at this size (diagnostic)', async (t) => {
      for (const c of cases) {
        const start = performance.now();
        for (let i = 0; i < 10; i++) await search.hybrid({ text: QUERY, limit: 5, ...c.filters });
        t.diagnostic(`${c.what}: ${((performance.now() - start) / 10).toFixed(2)} ms per search`);
      }
      const start = performance.now();
      for (let i = 0; i < 10; i++) await search.hybrid({ text: QUERY, limit: 5 });
      t.diagnostic(`unfiltered: ${((performance.now() - start) / 10).toFixed(2)} ms per search`);
    });
  });
}

suite('PGlite', pgliteHarness, false);
suite('Postgres', postgresHarness, process.env.DATABASE_URL ? false : 'DATABASE_URL not set');
