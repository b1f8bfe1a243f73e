// `search` throughput and latency of N concurrent MCP clients against a real `serve` (Streamable
// HTTP, one session each), for A/B runs of two built checkouts on copies of one data dir:
//   node bench/ab-search-clients.mjs <checkout> <data dir> [clients=16] [queries per client=60]
// Copies <data dir> (for example one made by bench/make-store.mjs), starts the checkout's `serve`
// on the copy with the flags of its `npm start`, warms each client up with 10 searches, then every
// client searches one after the other (first six words of seeded corpus memories, limit 10, format
// json). Prints one JSON line: queries per second over the wall time, p50 and p95 in ms.
/* global fetch, performance, setTimeout */
import { spawn } from 'node:child_process';
import { cp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

const [root, src, clientsArg, perClientArg] = process.argv.slice(2);
if (!root || !src) throw new Error('usage: node bench/ab-search-clients.mjs <checkout> <data dir> [clients] [queries per client]');
const clients = Number(clientsArg ?? 16);
const perClient = Number(perClientArg ?? 60);
const dir = `${src}-clients-${process.pid}`;
await rm(dir, { recursive: true, force: true });
await cp(src, dir, { recursive: true });
const { httpClient } = await import(join(root, 'dist/test/helpers/cli.js'));
const { makeCorpus } = await import(join(root, 'dist/bench/corpus.js'));
// The Node flags of the checkout's `npm start` (an older checkout may have none).
const start = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')).scripts.start;
const flags = start.split(' ').filter((w) => w.startsWith('--'));
const port = 7000 + (process.pid % 1000);
const env = { ...process.env, LOG_LEVEL: 'warn', CONTEXT_GRAPH_TOOLSETS: 'all', CONTEXT_GRAPH_AUTO_EDGES: 'off' };
delete env.DATABASE_URL;
delete env.REDIS_URL;
const server = spawn(process.execPath, [...flags, join(root, 'dist/src/cli.js'), 'serve', '--data-dir', dir, '--port', String(port)], { env, stdio: 'ignore' });
const url = `http://127.0.0.1:${port}`;
for (;;) {
  const up = await fetch(`${url}/healthz`).then(
    (r) => r.ok,
    () => false,
  );
  if (up) break;
  await new Promise((r) => setTimeout(r, 200));
}
const queries = makeCorpus(2000, 7).map((m) => m.content.split(' ').slice(0, 6).join(' '));
const search = (client, text) => client.callTool({ name: 'search', arguments: { query_text: text, limit: 10, format: 'json' } });
const sessions = await Promise.all(Array.from({ length: clients }, (_, i) => httpClient(`${url}/mcp`, `bench-${i}`)));
for (const client of sessions) for (const text of queries.slice(0, 10)) await search(client, text);
const ms = [];
const t0 = performance.now();
await Promise.all(
  sessions.map(async (client, k) => {
    for (let i = 0; i < perClient; i++) {
      const t = performance.now();
      await search(client, queries[(k * perClient + i) % queries.length]);
      ms.push(performance.now() - t);
    }
  }),
);
const wall = (performance.now() - t0) / 1000;
ms.sort((a, b) => a - b);
const at = (p) => Number(ms[Math.floor(p * ms.length)].toFixed(2));
console.log(JSON.stringify({ root, clients, queries: ms.length, per_s: Number((ms.length / wall).toFixed(1)), p50: at(0.5), p95: at(0.95) }));
await Promise.all(sessions.map((c) => c.close()));
server.kill('SIGINT');
await new Promise((r) => server.on('exit', r));
await rm(dir, { recursive: true, force: true });
