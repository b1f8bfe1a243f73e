// Where a `search` call's time goes, in process, against any built checkout and data dir:
//   node bench/profile-search.mjs <checkout> <data dir> [queries=200] [--cpu-prof via node flag]
// Opens the embedded app on <data dir> (use a copy: searches write the retrieval log and access
// times), runs the `search` tool handler (limit 5, default threshold 0.25) over seeded queries
// after 20 warm-ups, and prints p50/p95 wall, process CPU ms per call (all threads), per-call
// statements by their first words and their awaited ms, index-thread calls by op/space and
// embedding round trips (overlapping calls are each counted).
/* global AbortController, performance */
import { join } from 'node:path';
import { instrument, quantile } from './profile-kit.mjs';

const [root, dir, nArg, mode] = process.argv.slice(2);
if (!root || !dir) throw new Error('usage: node bench/profile-search.mjs <checkout> <data dir> [queries] [tool|service]');
const n = Number(nArg ?? 200);
const from = (p) => import(join(root, 'dist', p));
const { openBenchApp } = await from('bench/app.js');
const { makeQueries } = await from('bench/corpus.js');
const { searchTool } = await from('src/tools/memory/search.js');
const app = await openBenchApp(dir, null);

const profile = instrument(app);

const ctx = { services: app.services, actor: 'profile', session: 'profile', signal: new AbortController().signal, progress: async () => {}, toolsets: null, jobs: null };
// `service`: SearchService.hybrid as the bench's in-process figure calls it (no retrieval log).
const call = mode === 'service' ? (q) => app.services.search.hybrid({ text: q, limit: 5, scoreThreshold: 0.25 }) : (q) => searchTool.handler({ query_text: q, limit: 5 }, ctx);
for (const q of makeQueries(20, 7)) await call(q);
const queries = makeQueries(n, 42);
const ms = [];
profile.state.on = true;
const cpu0 = process.cpuUsage();
for (const q of queries) {
  const t0 = performance.now();
  await call(q);
  ms.push(performance.now() - t0);
}
const cpu = process.cpuUsage(cpu0);
profile.state.on = false;
// The slowest queries, timed again: a query that is slow twice is slow by its content, not by a pause.
const slowest = queries
  .map((q, i) => ({ q, i, ms: ms[i] }))
  .sort((a, b) => b.ms - a.ms)
  .slice(0, 8);
for (const s of slowest) {
  const t0 = performance.now();
  await call(s.q);
  s.again = performance.now() - t0;
}
const sizes = await app.indexes.sizes();
await app.close();
const pct = (p) => quantile(ms, p);
console.log(
  `${root} on ${dir} (${JSON.stringify(sizes)}): ${n} searches, p50 ${pct(0.5)} p95 ${pct(0.95)} p99 ${pct(0.99)} ms; CPU ${((cpu.user + cpu.system) / 1000 / n).toFixed(2)} ms/call`,
);
console.log(profile.report(n));
console.log('slowest (ms, ms again, query):');
for (const s of slowest) console.log(`${s.ms.toFixed(2).padStart(8)} ${s.again.toFixed(2).padStart(8)}  #${s.i} ${s.q}`);
