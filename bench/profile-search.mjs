// Where a `search` call's time goes, in process, against any built checkout and data dir:
//   node bench/profile-search.mjs <checkout> <data dir> [queries=200] [--cpu-prof via node flag]
// Opens the embedded app on <data dir> (use a copy: searches write the retrieval log and access
// times), runs the `search` tool handler (limit 5, default threshold 0.25) over seeded queries
// after 20 warm-ups, and prints p50/p95 wall, process CPU ms per call (all threads), per-call
// statements by their first words and their awaited ms, index-thread calls by op/space and
// embedding round trips (overlapping calls are each counted).
/* global AbortController, performance */
import { join } from 'node:path';

const [root, dir, nArg] = process.argv.slice(2);
if (!root || !dir) throw new Error('usage: node bench/profile-search.mjs <checkout> <data dir> [queries]');
const n = Number(nArg ?? 200);
const from = (p) => import(join(root, 'dist', p));
const { openBenchApp } = await from('bench/app.js');
const { makeQueries } = await from('bench/corpus.js');
const { searchTool } = await from('src/tools/memory/search.js');
const app = await openBenchApp(dir, null);

const stages = new Map();
let on = false;
const add = (key, ms) => {
  if (!on) return;
  const s = stages.get(key) ?? { calls: 0, ms: 0 };
  s.calls++;
  s.ms += ms;
  stages.set(key, s);
};
const timed = (obj, name, key) => {
  const f = obj[name].bind(obj);
  obj[name] = async (...a) => {
    const t0 = performance.now();
    try {
      return await f(...a);
    } finally {
      add(typeof key === 'function' ? key(...a) : key, performance.now() - t0);
    }
  };
};
const sqlKey = (text) => 'sql ' + text.trim().replace(/\s+/g, ' ').split(' ').slice(0, 5).join(' ').slice(0, 56);
timed(app.db, 'query', sqlKey);
const transaction = app.db.transaction.bind(app.db);
app.db.transaction = (fn) => {
  const t0 = performance.now();
  return transaction((tx) => (timed(tx, 'query', sqlKey), fn(tx))).finally(() => add('transaction (whole)', performance.now() - t0));
};
// Exclusive time inside PGlite (wasm, synchronous on this thread) by the statement running, and
// the time spent turning its answer into rows: the store's real cost per statement.
let current = 'other';
const pg = app.db.pg;
if (pg?.execProtocolRawSync) {
  const f = pg.execProtocolRawSync.bind(pg);
  pg.execProtocolRawSync = (...a) => {
    const t0 = performance.now();
    try {
      return f(...a);
    } finally {
      add(`pglite ${current}`, performance.now() - t0);
    }
  };
  const q = pg.query.bind(pg);
  pg.query = async (text, ...rest) => {
    current = sqlKey(text).slice(4);
    return q(text, ...rest);
  };
}
timed(app.embedder, 'embed', (_t, spaces) => `embed ${spaces?.join(',') ?? 'all'}`);
timed(app.indexes, 'search', (space, _q, k, o) => `index.search ${space} k${k}${o?.among ? ' among' : ''}`);
timed(app.indexes, 'termIdf', 'index.termIdf');
timed(app.indexes, 'sizes', 'index.sizes');

const ctx = { services: app.services, actor: 'profile', session: 'profile', signal: new AbortController().signal, progress: async () => {}, toolsets: null, jobs: null };
const call = (q) => searchTool.handler({ query_text: q, limit: 5 }, ctx);
for (const q of makeQueries(20, 7)) await call(q);
const queries = makeQueries(n, 42);
const ms = [];
on = true;
const cpu0 = process.cpuUsage();
for (const q of queries) {
  const t0 = performance.now();
  await call(q);
  ms.push(performance.now() - t0);
}
const cpu = process.cpuUsage(cpu0);
on = false;
const sizes = await app.indexes.sizes();
await app.close();
const pct = (p) => Math.round([...ms].sort((a, b) => a - b)[Math.min(ms.length - 1, Math.floor(p * ms.length))] * 100) / 100;
console.log(
  `${root} on ${dir} (${JSON.stringify(sizes)}): ${n} searches, p50 ${pct(0.5)} p95 ${pct(0.95)} p99 ${pct(0.99)} ms; CPU ${((cpu.user + cpu.system) / 1000 / n).toFixed(2)} ms/call`,
);
for (const [k, s] of [...stages].sort((a, b) => b[1].ms - a[1].ms)) console.log(`${(s.ms / n).toFixed(3).padStart(8)} ms/call ${(s.calls / n).toFixed(2).padStart(6)}×/call  ${k}`);
