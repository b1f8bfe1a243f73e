// The `search` tool's latency through an MCP client in process (the SDK's in-memory transport),
// so the tool pipeline (validation, the retrieval log, rendering the cards) is counted and the
// network is not: node bench/ab-search-tool.mjs <checkout with a built dist/> <data dir> [queries=300] [gap ms=20]
// Copies <data dir> (for example one made by bench/make-store.mjs) and runs against the copy;
// the queries are the first six words of seeded corpus memories, limit 10, format json, one at a
// time, `gap` ms apart (0: back to back).
/* global performance, setTimeout */
import { cp, rm } from 'node:fs/promises';
import { join } from 'node:path';
const [root, src, nArg, gapArg] = process.argv.slice(2);
if (!root || !src) throw new Error('usage: node bench/ab-search-tool.mjs <checkout> <data dir> [queries] [gap ms]');
const n = Number(nArg ?? 300);
const gap = Number(gapArg ?? 20);
const dir = src + '-copy-' + process.pid;
await rm(dir, { recursive: true, force: true });
await cp(src, dir, { recursive: true });
const { openBenchApp } = await import(join(root, 'dist/bench/app.js'));
const { makeCorpus } = await import(join(root, 'dist/bench/corpus.js'));
const { inMemoryClient } = await import(join(root, 'dist/test/helpers/in-memory.js'));
const app = await openBenchApp(dir, null);
const client = await inMemoryClient(app, { name: 'o', actor: 'bench' });
const qs = makeCorpus(n, 7).map((m) => m.content.split(' ').slice(0, 6).join(' '));
const q = (ms, p) => [...ms].sort((a, b) => a - b)[Math.floor(p * ms.length)].toFixed(2);
for (const text of qs.slice(0, 50)) await client.callTool({ name: 'search', arguments: { query_text: text, limit: 10, format: 'json' } });
const b = [];
for (const text of qs) {
  const t = performance.now();
  await client.callTool({ name: 'search', arguments: { query_text: text, limit: 10, format: 'json' } });
  b.push(performance.now() - t);
  if (gap) await new Promise((r) => setTimeout(r, gap));
}
console.log(JSON.stringify({ root, gap, p50: q(b, 0.5), p95: q(b, 0.95) }));
await client.close();
await app.close();
await rm(dir, { recursive: true, force: true });
