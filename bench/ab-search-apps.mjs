// Search latency A/B with a whole app per side, so index-thread and store changes count too
// (bench/ab-search.mjs runs both sides on B's app):
//   node bench/ab-search-apps.mjs <checkout A> <checkout B> <data dir> [pairs=4] [queries=600]
// Both checkouts need a built dist/. Each side runs in its own process, one after the other,
// alternating which goes first, on the same data dir (SearchService.hybrid writes nothing; still,
// use a copy): it opens the embedded app (index snapshot, store), makes 20 warm-up searches,
// then times `queries` searches as the scale bench's in-process figure does (limit 5, threshold
// 0.25, its seeded queries). Prints each run's p50/p95 and, per side, the median over the pairs.
/* global performance */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const args = process.argv.slice(2);
if (args[0] === '--child') {
  const [, root, dir, nArg] = args;
  const n = Number(nArg);
  const from = (p) => import(join(root, 'dist', p));
  const { openBenchApp } = await from('bench/app.js');
  const { makeQueries } = await from('bench/corpus.js');
  const app = await openBenchApp(dir, null);
  const call = (q) => app.services.search.hybrid({ text: q, limit: 5, scoreThreshold: 0.25 });
  for (const q of makeQueries(20, 7)) await call(q);
  const ms = [];
  for (const q of makeQueries(n, 42)) {
    const t0 = performance.now();
    await call(q);
    ms.push(performance.now() - t0);
  }
  await app.close();
  ms.sort((a, b) => a - b);
  const at = (p) => Math.round(ms[Math.min(ms.length - 1, Math.floor(p * ms.length))] * 100) / 100;
  console.log(JSON.stringify({ p50: at(0.5), p95: at(0.95) }));
} else {
  const [rootA, rootB, dir, pairsArg, queriesArg] = args;
  if (!rootA || !rootB || !dir) throw new Error('usage: node bench/ab-search-apps.mjs <checkout A> <checkout B> <data dir> [pairs] [queries]');
  const pairs = Number(pairsArg ?? 4);
  const queries = Number(queriesArg ?? 600);
  const runs = { A: [], B: [] };
  const run = (side, root) => {
    const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', root, dir, String(queries)], { encoding: 'utf8' });
    const r = JSON.parse(out.trim().split('\n').pop());
    runs[side].push(r);
    console.log(JSON.stringify({ side, root, ...r }));
  };
  for (let i = 0; i < pairs; i++) {
    const order = i % 2 === 0 ? ['A', 'B'] : ['B', 'A'];
    for (const side of order) run(side, side === 'A' ? rootA : rootB);
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const side of ['A', 'B']) {
    const rs = runs[side];
    console.log(JSON.stringify({ side, root: side === 'A' ? rootA : rootB, pairs, queries, median_p50: median(rs.map((r) => r.p50)), median_p95: median(rs.map((r) => r.p95)) }));
  }
}
