// CPU per search and per store in one process, for A/B runs of settings that are process-wide
// (PGlite start parameters, V8 flags) and so cannot share a process:
//   node bench/footprint-ab.mjs <checkout with dist/> <data dir> [searches=300] [stores=100] [ENV=value ...]
// Opens the app on <data dir> (give each run its own copy of a bench/make-store.mjs dir: stores
// write into it), warms up, then times `SearchService.hybrid` (limit 5) and `MemoryService.store`
// (embedded: waits for its vectors), reporting process CPU (user+sys, all threads, background
// jobs included) per call and wall p50/p95, plus RSS at the end. Alternate the checkouts/settings
// run by run so machine load falls on both alike.
import { join } from 'node:path';
import { readFileSync } from 'node:fs';

const [root, dir, searchesArg, storesArg, ...envArgs] = process.argv.slice(2);
if (!root || !dir) throw new Error('usage: node bench/footprint-ab.mjs <checkout> <data dir> [searches] [stores] [ENV=value ...]');
const searches = Number(searchesArg ?? 300);
const stores = Number(storesArg ?? 100);
const extraEnv = Object.fromEntries(envArgs.map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]));
const from = (p) => import(join(root, 'dist', p));
const { openBenchApp } = await from('bench/app.js');
const { makeQueries } = await from('bench/corpus.js');
const app = await openBenchApp(dir, null, extraEnv);
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e3;
};
const rssMiB = () => Math.round(Number(readFileSync('/proc/self/status', 'utf8').match(/VmRSS:\s+(\d+)/)[1]) / 1024);
const q = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
async function timed(n, fn) {
  const ms = [];
  const c0 = cpuMs();
  for (let i = 0; i < n; i++) {
    const s = process.hrtime.bigint();
    await fn(i);
    ms.push(Number(process.hrtime.bigint() - s) / 1e6);
  }
  return { cpu_ms_per_call: +((cpuMs() - c0) / n).toFixed(2), p50_ms: +q(ms, 0.5).toFixed(2), p95_ms: +q(ms, 0.95).toFixed(2) };
}
// Warm-up, untimed: the embedding worker, the index replicas, PGlite's hot paths.
for (const t of makeQueries(30, 7)) await app.services.search.hybrid({ text: t, limit: 5, scoreThreshold: 0.25 });
for (let i = 0; i < 10; i++) await app.services.memory.store({ content: `warm-up note ${i} about the nightly backup`, project_id: 'fp-ab', memory_type: 'semantic' });
const texts = makeQueries(searches, 42);
const search = await timed(searches, (i) => app.services.search.hybrid({ text: texts[i], limit: 5, scoreThreshold: 0.25 }));
const store = await timed(stores, (i) =>
  app.services.memory.store({
    content: `The release train ${i} ships the billing fix after the audit logs review (${texts[i % texts.length]})`,
    project_id: 'fp-ab',
    memory_type: 'semantic',
  }),
);
console.log(JSON.stringify({ root, env: extraEnv, search, store, rss_mib: rssMiB() }));
await app.close();
