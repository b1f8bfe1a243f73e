// Where a live `store` call's time goes, in process, against any built checkout and data dir:
//   node bench/profile-store.mjs <checkout> <data dir> [stores=100]
// Opens the embedded app on <data dir> (use a copy: it writes), runs `MemoryService.store`
// back to back as bench/load.ts storeLoop does, then waits until the queue is idle, so the
// background work each store leaves (embed, link, fingerprint, graph jobs) is counted too. Prints
// p50/p95 wall of the calls, process CPU ms per store (all threads, calls and jobs) and, per
// store, statements by their first words with their awaited and PGlite-exclusive ms.
/* global performance */
import { join } from 'node:path';
import { instrument, quantile, queueIdle } from './profile-kit.mjs';

const [root, dir, nArg] = process.argv.slice(2);
if (!root || !dir) throw new Error('usage: node bench/profile-store.mjs <checkout> <data dir> [stores]');
const n = Number(nArg ?? 100);
const from = (p) => import(join(root, 'dist', p));
const { openBenchApp } = await from('bench/app.js');
const { makeCorpus } = await from('bench/corpus.js');
const app = await openBenchApp(dir, null);
const idle = () => queueIdle(app);
const corpus = makeCorpus(n + 10, 977);
const store = (m) => app.services.memory.store({ content: m.content, topic: m.topic, tags: m.tags, project_id: 'bench', memory_type: 'semantic' });
for (const m of corpus.slice(n)) await store(m);
await idle();

const profile = instrument(app);
const ms = [];
profile.state.on = true;
const cpu0 = process.cpuUsage();
const t0all = performance.now();
for (const m of corpus.slice(0, n)) {
  const t0 = performance.now();
  await store(m);
  ms.push(performance.now() - t0);
}
const callsDone = performance.now() - t0all;
await idle();
const drained = performance.now() - t0all;
const cpu = process.cpuUsage(cpu0);
profile.state.on = false;
const sizes = await app.indexes.sizes();
await app.close();
console.log(
  `${root} on ${dir} (${sizes.E1 ?? '?'} in E1): ${n} stores, p50 ${quantile(ms, 0.5)} p95 ${quantile(ms, 0.95)} ms; calls ${(callsDone / 1000).toFixed(1)} s, idle after ${(drained / 1000).toFixed(1)} s; CPU ${((cpu.user + cpu.system) / 1000 / n).toFixed(2)} ms/store`,
);
console.log(profile.report(n));
