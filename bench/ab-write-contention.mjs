// Reads and writes of one embedded app competing for its threads, for A/B runs of built checkouts
// on copies of one data dir (e.g. made by bench/make-store.mjs):
//   node bench/ab-write-contention.mjs <checkout> <data dir> <mode> [n]
// Modes:
//   stores       n `MemoryService.store` calls back to back (default 300): p50/p95 ms, stores/s
//   mixed        the same, with searches one after another beside them: store and search p50/p95
//   import       a bulk import of n corpus memories (default 5000; bench/load.ts bulkLoad, what
//                `context-graph import` runs) with one search every 50 ms: search p50/p95, import/s
//   import-only  the import alone: memories/s until every one is searchable and fingerprinted
// Each run copies <data dir>, stores 20 memories and searches 20 times untimed, and prints one JSON
// line. Searches are SearchService.hybrid (limit 5, threshold 0.25) over seeded queries.
/* global performance, setTimeout */
import { cp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { queueIdle } from './profile-kit.mjs';

const [root, src, mode, nArg] = process.argv.slice(2);
const MODES = ['stores', 'mixed', 'import', 'import-only'];
if (!root || !src || !MODES.includes(mode)) throw new Error(`usage: node bench/ab-write-contention.mjs <checkout> <data dir> <${MODES.join('|')}> [n]`);
const n = Number(nArg ?? (mode.startsWith('import') ? 5000 : 300));
const SEARCH_EVERY_MS = 50;

const dir = `${src}-contention-${process.pid}`;
await rm(dir, { recursive: true, force: true });
await cp(src, dir, { recursive: true });
const from = (p) => import(join(root, 'dist', p));
const { openBenchApp } = await from('bench/app.js');
const { makeCorpus, makeQueries } = await from('bench/corpus.js');
const { bulkLoad } = await from('bench/load.js');
const app = await openBenchApp(dir, null);

const idle = () => queueIdle(app);
const quantile = (ms, p) => (ms.length ? Number([...ms].sort((a, b) => a - b)[Math.min(ms.length - 1, Math.floor(p * ms.length))].toFixed(2)) : null);
const timed = async (list, work) => {
  const t = performance.now();
  await work();
  const took = performance.now() - t;
  list.push(took);
  return took;
};

const corpus = makeCorpus(n + 20, 977);
const store = (m) => app.services.memory.store({ content: m.content, topic: m.topic, tags: m.tags, project_id: 'bench', memory_type: 'semantic' });
const queries = makeQueries(400, 42);
let asked = 0;
const search = () => app.services.search.hybrid({ text: queries[asked++ % queries.length], limit: 5, scoreThreshold: 0.25 });
for (const m of corpus.slice(n)) await store(m);
for (let i = 0; i < 20; i++) await search();
await idle();

const stores = [];
const searches = [];
const t0 = performance.now();
if (mode === 'stores' || mode === 'mixed') {
  let storing = true;
  const searcher = (async () => {
    while (mode === 'mixed' && storing) await timed(searches, search);
  })();
  for (const m of corpus.slice(0, n)) await timed(stores, () => store(m));
  storing = false;
  await searcher;
} else {
  let importing = true;
  const imported = bulkLoad(app, makeCorpus(n, 555), { projectId: 'imported' }).finally(() => (importing = false));
  while (mode === 'import' && importing) {
    const took = await timed(searches, search);
    if (took < SEARCH_EVERY_MS) await new Promise((r) => setTimeout(r, SEARCH_EVERY_MS - took));
  }
  await imported;
}
const seconds = (performance.now() - t0) / 1000;
await idle();
await app.close();
await rm(dir, { recursive: true, force: true });
const rate = { [mode.startsWith('import') ? 'imported_per_s' : 'stores_per_s']: Math.round(n / seconds) };
console.log(
  JSON.stringify({
    root,
    mode,
    n,
    ...rate,
    ...(stores.length ? { store_p50: quantile(stores, 0.5), store_p95: quantile(stores, 0.95) } : {}),
    ...(searches.length ? { searches: searches.length, search_p50: quantile(searches, 0.5), search_p95: quantile(searches, 0.95) } : {}),
  }),
);
