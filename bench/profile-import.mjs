// Per-stage timings of a bulk import, in process, against any built checkout:
//   node bench/profile-import.mjs <checkout> [memories=10000] [batch=1000] [two|one: embedding passes]
// Opens an embedded app from <checkout>/dist on a fresh temp directory, imports a seeded corpus
// through ImportService.importBatch in batches (what `context-graph import` does), waits until
// default search finds every memory (the first of two embedding passes, `searchFirst`: what the CLI
// asks for), until every space holds every memory (no embed job left and the index replica caught
// up), then until the queue is empty (fingerprints). Prints wall times, process CPU ms per memory (all threads), and
// where the main thread's awaited time went: statements by their first words, transactions,
// embedding pool calls and index thread calls (overlapping calls are each counted).
/* global setTimeout, performance */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { instrument } from './profile-kit.mjs';

const [root, nArg, batchArg, passesArg = 'two'] = process.argv.slice(2);
if (!root) throw new Error('usage: node bench/profile-import.mjs <checkout> [memories] [batch] [two|one]');
const searchFirst = passesArg !== 'one';
const n = Number(nArg ?? 10_000);
const batch = Number(batchArg ?? 1000);
const from = (p) => import(join(root, 'dist', p));
const { openBenchApp } = await from('bench/app.js');
const { makeCorpus } = await from('bench/corpus.js');

const dir = await mkdtemp(join(tmpdir(), 'cg-profile-import-'));
const app = await openBenchApp(dir, null);
const profile = instrument(app);
profile.state.on = true;
const { timed, add } = profile;
timed(app.indexes, 'upsert', (space) => `indexes.upsert ${space}`);
timed(app.indexSync, 'pull', 'indexSync.pull');

const records = makeCorpus(n, 42).map((m) => ({ type: 'memory', ...m }));
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < records.length; i += batch) {
  const t = performance.now();
  // pipelined: what `context-graph import` asks for in embedded mode (a checkout without it ignores it).
  await app.services.bulkImport.importBatch(records.slice(i, i + batch), { actor: 'profile', pipelined: true, searchFirst });
  add('importBatch', performance.now() - t);
}
const written = performance.now() - t0;
// Two passes (a checkout with `searchFirst`): searchable once the first is in the indexes.
let searchable = null;
if (searchFirst && app.services.bulkImport.searchable) {
  await app.services.bulkImport.searchable();
  await app.indexSync.pull();
  searchable = performance.now() - t0;
  await app.services.bulkImport.embedRest();
}
const owed = async () => Number((await app.db.query('select count(*)::int as n from embedding_outbox'))[0].n);
while ((await owed()) > 0) await new Promise((r) => setTimeout(r, 20));
await app.indexSync.pull();
const everySpace = performance.now() - t0;
searchable ??= everySpace;
await app.services.bulkImport.scheduleDeferredFingerprints?.();
for (;;) {
  const c = await app.queue.counts();
  if (c.waiting + c.active === 0) break;
  await new Promise((r) => setTimeout(r, 20));
}
const drained = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const fingerprints = Number((await app.db.query('select count(*)::int as n from fingerprints'))[0].n);
const sizes = await app.indexes.sizes();
await app.close();
await rm(dir, { recursive: true, force: true });

const r = (x) => Math.round(x);
console.log(`${root}: ${n} memories, batches of ${batch}`);
console.log(
  `written ${r(written)} ms (${r(n / (written / 1000))}/s); searchable ${r(searchable)} ms (${r(n / (searchable / 1000))}/s); every space ${r(everySpace)} ms (${r(n / (everySpace / 1000))}/s); fingerprints done ${r(drained)} ms`,
);
console.log(
  `CPU ${r((cpu.user + cpu.system) / 1000)} ms = ${((cpu.user + cpu.system) / 1000 / n).toFixed(2)} ms/memory; fingerprints ${fingerprints}; index sizes ${JSON.stringify(sizes)}`,
);
for (const [k, s] of profile.stages().slice(0, 40)) console.log(`${String(r(s.ms)).padStart(8)} ms ${String(s.calls).padStart(6)}× ${k}`);
