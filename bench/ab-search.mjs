// Search latency A/B in one process, interleaved so machine load falls on both alike:
//   node bench/ab-search.mjs <checkout A> <checkout B> <data dir> [rounds=20] [batch=25] [gap ms=0]
// Both checkouts need a built dist/. The app (store, embedding pool, index thread) is opened from
// B on the data dir (use a copy: both sides write their retrieval log and access times into it);
// A's SearchService, RetrievalLog and NavigationService and both `search` tool handlers run on
// that same app. Each round times one batch of `search` tool calls (limit 5, threshold 0.25: what
// an agent's call does in process, minus the transport) and one batch of SearchService.hybrid
// calls per side, alternating which side goes first. Deferred bookkeeping a side queued is
// written after its batch, outside the timing (steady-state flushes inside a batch are timed).
// A gap (think time between calls, as an agent has) lets deferred work run between calls instead
// of inside the next one. Prints p50/p95/p99 per side and call, process CPU ms per call (all
// threads: steadier than wall time on a shared machine), and per-call DB statements and
// index/embed round trips.
/* global setTimeout, AbortController */
import { join } from 'node:path';

const [rootA, rootB, dir, roundsArg, batchArg, gapArg] = process.argv.slice(2);
const gapMs = Number(gapArg ?? 0);
const pause = () => (gapMs > 0 ? new Promise((r) => setTimeout(r, gapMs)) : Promise.resolve());
if (!rootA || !rootB || !dir) throw new Error('usage: node bench/ab-search.mjs <checkout A> <checkout B> <data dir> [rounds] [batch]');
const rounds = Number(roundsArg ?? 20);
const batch = Number(batchArg ?? 25);
const from = (root, p) => import(join(root, 'dist', p));

const { openBenchApp } = await from(rootB, 'bench/app.js');
const { makeQueries } = await from(rootB, 'bench/corpus.js');
const app = await openBenchApp(dir, null);

// Counters: statements on the store, round trips to the index thread and the embedding pool.
const count = { sql: 0, index: 0, embed: 0 };
const wrap = (obj, names, key) => {
  for (const name of names) {
    const f = obj[name]?.bind(obj);
    if (f) obj[name] = (...a) => (count[key]++, f(...a));
  }
};
wrap(app.db, ['query'], 'sql');
const transaction = app.db.transaction.bind(app.db);
app.db.transaction = (fn) => transaction((tx) => (wrap(tx, ['query'], 'sql'), fn(tx)));
wrap(app.indexes, ['search', 'termIdf', 'sizes'], 'index');
wrap(app.embedder, ['embed'], 'embed');

async function side(root, own) {
  const { searchTool } = await from(root, 'src/tools/memory/search.js');
  let services = app.services;
  if (!own) {
    const { SearchService } = await from(root, 'src/services/search.js');
    const { RetrievalLog } = await from(root, 'src/services/retrieval-log.js');
    const { NavigationService } = await from(root, 'src/services/navigation/navigation.js');
    services = {
      ...app.services,
      // The same deps the app gives its own (app.ts), so the sides differ only in their code:
      // fusion weights from the signals' cache, and the signals told of each logged retrieval.
      search: new SearchService({ db: app.db, embedder: app.embedder, indexes: app.indexes, logger: app.logger, dynamics: app.services.signals }),
      retrievalLog: new RetrievalLog({ db: app.db, logger: app.logger, afterRecord: () => app.services.signals.noteRetrieval() }),
      navigation: new NavigationService({ db: app.db, queue: app.queue, logger: app.logger }),
    };
  }
  const ctx = { services, actor: 'ab-search', session: `ab-${own ? 'B' : 'A'}`, signal: new AbortController().signal, progress: async () => {}, toolsets: null, jobs: null };
  return {
    tool: (q) => searchTool.handler({ query_text: q, limit: 5, score_threshold: 0.25 }, ctx),
    service: (q) => services.search.hybrid({ text: q, limit: 5, scoreThreshold: 0.25 }),
    // Reading the log and the recent context writes what a side deferred (its two reads are not counted).
    flush: async () => {
      await services.retrievalLog.recent({ limit: 1 });
      await services.navigation.recent({ session: ctx.session, sessionOnly: true, since: null, limit: 1, projectId: null });
    },
  };
}

const sides = { A: await side(rootA, false), B: await side(rootB, true) };
const queries = makeQueries(rounds * batch, 42);
const ms = { A: { tool: [], service: [] }, B: { tool: [], service: [] } };
const per = { A: { tool: { sql: 0, index: 0, embed: 0, n: 0 } }, B: { tool: { sql: 0, index: 0, embed: 0, n: 0 } } };
const cpu = { A: { tool: 0, service: 0 }, B: { tool: 0, service: 0 } };
const cpuMs = (u) => (u.user + u.system) / 1e3;

// Warm-up: both sides, untimed.
for (const q of makeQueries(20, 7)) for (const s of Object.values(sides)) (await s.tool(q), await s.service(q));
for (const s of Object.values(sides)) await s.flush();

for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? ['A', 'B'] : ['B', 'A'];
  const qs = queries.slice(r * batch, (r + 1) * batch);
  for (const name of order) {
    const s = sides[name];
    const before = { ...count };
    let c0 = process.cpuUsage();
    for (const q of qs) {
      const t0 = process.hrtime.bigint();
      await s.tool(q);
      ms[name].tool.push(Number(process.hrtime.bigint() - t0) / 1e6);
      await pause();
    }
    // Statements and CPU of the batch include its bookkeeping, whenever it is written.
    await s.flush();
    cpu[name].tool += cpuMs(process.cpuUsage(c0));
    const p = per[name].tool;
    for (const k of ['sql', 'index', 'embed']) p[k] += count[k] - before[k];
    p.n += qs.length;
    c0 = process.cpuUsage();
    for (const q of qs) {
      const t0 = process.hrtime.bigint();
      await s.service(q);
      ms[name].service.push(Number(process.hrtime.bigint() - t0) / 1e6);
      await pause();
    }
    cpu[name].service += cpuMs(process.cpuUsage(c0));
  }
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))] * 100) / 100;
};
const out = { rounds, batch, gap_ms: gapMs, size: (await app.indexes.sizes()).E1 ?? 0 };
for (const name of ['A', 'B']) {
  const p = per[name].tool;
  // The flush() reads add two statements per batch: not part of a search.
  const reads = 2 * rounds;
  out[name] = {
    checkout: name === 'A' ? rootA : rootB,
    tool: {
      p50: pct(ms[name].tool, 0.5),
      p95: pct(ms[name].tool, 0.95),
      p99: pct(ms[name].tool, 0.99),
      cpu_ms: Math.round((cpu[name].tool / ms[name].tool.length) * 100) / 100,
      n: ms[name].tool.length,
    },
    service: {
      p50: pct(ms[name].service, 0.5),
      p95: pct(ms[name].service, 0.95),
      p99: pct(ms[name].service, 0.99),
      cpu_ms: Math.round((cpu[name].service / ms[name].service.length) * 100) / 100,
      n: ms[name].service.length,
    },
    per_tool_call: { sql: Math.round(((p.sql - reads) / p.n) * 100) / 100, index: Math.round((p.index / p.n) * 100) / 100, embed: Math.round((p.embed / p.n) * 100) / 100 },
  };
}
console.log(JSON.stringify(out));
await app.close();
