// Builds a reusable embedded data dir of the bench corpus (seeded), through the bench's bulk
// loader (the pipelined embedded import), for A/B runs and bench parts that copy it per run:
//   node bench/make-store.mjs <checkout> <data dir> [memories=100000] [seed=42]
// Prints the load time and rate. Copy the dir before pointing anything that writes at it.
import { join } from 'node:path';

const [root, dir, nArg, seedArg] = process.argv.slice(2);
if (!root || !dir) throw new Error('usage: node bench/make-store.mjs <checkout> <data dir> [memories] [seed]');
const n = Number(nArg ?? 100_000);
const seed = Number(seedArg ?? 42);
const from = (p) => import(join(root, 'dist', p));
const { openBenchApp } = await from('bench/app.js');
const { makeCorpus } = await from('bench/corpus.js');
const { bulkLoad } = await from('bench/load.js');
const app = await openBenchApp(dir, null);
const cpu0 = process.cpuUsage();
const every = Math.max(5000, Math.floor(n / 10));
const r = await bulkLoad(app, makeCorpus(n, seed), { onProgress: (d) => d % every === 0 && console.error(`loaded ${d}/${n}`) });
const cpu = process.cpuUsage(cpu0);
console.log(
  JSON.stringify({
    dir,
    memories: n,
    seed,
    path: r.path,
    seconds: r.seconds,
    per_s: r.per_s,
    cpu_s: Math.round((cpu.user + cpu.system) / 1e4) / 100,
    sizes: await app.indexes.sizes(),
  }),
);
await app.close();
