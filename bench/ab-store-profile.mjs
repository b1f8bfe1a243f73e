// Store profile A/B (issue 15). Two steps, so both checkouts time the same data:
//   node bench/ab-store-profile.mjs prepare <checkout> <dir> <size>   bulk-loads <size> memories (model-free corpus), closes (index snapshot saved)
//   node bench/ab-store-profile.mjs run <checkout> <dir> [samples]    MemoryService.store × samples on a copy of <dir>
// `run` prints one JSON line: wall p50/p95, process CPU ms per store (all threads), statements per store
// (every db.query/exec and transaction statement of the process, background jobs included), and the
// latency of a search issued right after each store that must find the stored memory (read-your-writes).
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
const [mode, root, dir, arg] = process.argv.slice(2);
const { openBenchApp } = await import(join(root, 'dist/bench/app.js'));
const { makeCorpus } = await import(join(root, 'dist/bench/corpus.js'));
if (mode === 'prepare') {
  const { bulkLoad } = await import(join(root, 'dist/bench/load.js'));
  const app = await openBenchApp(dir, null);
  const r = await bulkLoad(app, makeCorpus(Number(arg), 42), {});
  console.log(JSON.stringify({ prepared: dir, ...r, nids: undefined, ids: undefined }));
  await app.close();
  process.exit(0);
}
const samples = Number(arg ?? 200);
const work = await mkdtemp(join(tmpdir(), 'cg-abprof-'));
await cp(dir, work, { recursive: true });
const app = await openBenchApp(work, null);
let statements = 0;
// STMT_LOG=1: per statement text, count and summed wall ms (queueing on the one connection included).
const stmtLog = process.env.STMT_LOG ? new Map() : null;
let logging = false;
const timed = (sql, p) => {
  statements++;
  if (!stmtLog || !logging) return p;
  const t = process.hrtime.bigint();
  const key = String(sql).replace(/\s+/g, ' ').slice(0, 90);
  return p.finally(() => {
    const e = stmtLog.get(key) ?? [0, 0];
    e[0]++;
    e[1] += Number(process.hrtime.bigint() - t) / 1e6;
    stmtLog.set(key, e);
  });
};
const db = app.db;
for (const m of ['query', 'exec']) {
  const f = db[m].bind(db);
  db[m] = (sql, ...a) => timed(sql, f(sql, ...a));
}
const tx = db.transaction.bind(db);
db.transaction = (fn) =>
  tx((h) => {
    statements += 2; // BEGIN, COMMIT
    const q = h.query.bind(h);
    return fn({ ...h, query: (sql, ...a) => timed(sql, q(sql, ...a)), exec: (sql) => timed(sql, h.exec(sql)) });
  });
const corpus = makeCorpus(samples + 20, 7);
// Warm-up (first embedding loads the model in the worker).
const w0 = process.hrtime.bigint();
await app.services.memory.store({ content: corpus[0].content, project_id: 'bench', memory_type: 'semantic' });
const firstStoreMs = Number(process.hrtime.bigint() - w0) / 1e6;
for (let i = 1; i < 5; i++) await app.services.memory.store({ content: corpus[i].content, project_id: 'bench', memory_type: 'semantic' });
await sleep(500);
const wall = [];
const cpu = [];
const stmts = [];
let found = 0;
let foundE1 = 0;
const searchMs = [];
const c0 = process.cpuUsage();
logging = true;
const s0 = statements;
for (let i = 0; i < samples; i++) {
  const m = corpus[20 + i];
  const content = `${m.content} zqx${i}marker`;
  const before = statements;
  const c = process.cpuUsage();
  const t = process.hrtime.bigint();
  const r = await app.services.memory.store({ content, topic: m.topic, tags: m.tags, project_id: 'bench', memory_type: 'semantic' });
  wall.push(Number(process.hrtime.bigint() - t) / 1e6);
  const d = process.cpuUsage(c);
  cpu.push((d.user + d.system) / 1000);
  stmts.push(statements - before);
  // Every 10th store: an immediate search must find it.
  if (i % 10 === 0) {
    const ts = process.hrtime.bigint();
    // What invoke() does before every call but store (pending-vectors.ts); absent on the baseline.
    await app.services.pendingVectors?.settled();
    const hits = await app.services.search.hybrid({ text: `zqx${i}marker ${m.content.split(' ').slice(0, 4).join(' ')}`, limit: 5 });
    searchMs.push(Number(process.hrtime.bigint() - ts) / 1e6);
    const hit = hits.hits.find((h) => h.node.id === r.node.id);
    if (hit) found++;
    if (hit?.signals.E1) foundE1++;
  }
}
// Let the background jobs the stores queued finish: their statements and CPU count too.
const drainT = process.hrtime.bigint();
while ((await app.queue.counts?.())?.active > 0 || (await app.queue.counts?.())?.waiting > 0) await sleep(50);
const drainMs = Number(process.hrtime.bigint() - drainT) / 1e6;
const allCpu = process.cpuUsage(c0);
const q = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const r2 = (x) => Math.round(x * 100) / 100;
console.log(
  JSON.stringify({
    root,
    samples,
    first_store_ms: r2(firstStoreMs),
    wall_p50_ms: r2(q(wall, 0.5)),
    wall_p95_ms: r2(q(wall, 0.95)),
    cpu_ms_per_store_in_call_p50: r2(q(cpu, 0.5)),
    cpu_ms_per_store_total: r2((allCpu.user + allCpu.system) / 1000 / samples),
    statements_in_call_p50: q(stmts, 0.5),
    statements_per_store_total: r2((statements - s0) / samples),
    drain_ms: r2(drainMs),
    read_your_writes: `${found}/${Math.ceil(samples / 10)}`,
    read_your_writes_by_e1: foundE1,
    search_after_store_p50_ms: r2(q(searchMs, 0.5)),
    search_after_store_max_ms: r2(Math.max(...searchMs)),
  }),
);
if (stmtLog)
  for (const [k, [n, ms]] of [...stmtLog].sort((a, b) => b[1][1] - a[1][1])) console.log(`${(n / samples).toFixed(2)}/store ${(ms / samples).toFixed(2)} ms/store  ${k}`);
await app.close();
await rm(work, { recursive: true, force: true });
