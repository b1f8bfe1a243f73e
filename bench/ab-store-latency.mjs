/* global setTimeout */
// Store latency A/B: node bench/ab-store-latency.mjs <checkout with a built dist/> [N] [gap ms]. MemoryService.store in embedded mode, N memories, synthetic
// text, back to back (gap 0) or paced: each call starts `gap` ms after the previous answered, as an agent's stores arrive.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const root = process.argv[2];
const n = Number(process.argv[3] ?? 300);
const gap = Number(process.argv[4] ?? 0);
const { openBenchApp } = await import(join(root, 'dist/bench/app.js'));
const dir = await mkdtemp(join(tmpdir(), 'cg-lat-'));
const app = await openBenchApp(dir, null);
const words =
  'the team deploy billing service friday database backup because outage caused rollback Caroline Melanie painting lake camping kids school pottery parseHttpRequest src/net/client.ts support group adoption 2023 May July concert guitar'.split(
    ' ',
  );
let seed = 42;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const ms = [];
const t0 = process.hrtime.bigint();
for (let i = 0; i < n; i++) {
  const text = Array.from({ length: 8 + Math.floor(rnd() * 20) }, () => words[Math.floor(rnd() * words.length)]).join(' ') + ` #${i}`;
  const s = process.hrtime.bigint();
  await app.services.memory.store({ content: text, project_id: 'lat', memory_type: 'semantic', valid_from: new Date(Date.UTC(2023, 0, 1) + i * 3600_000) });
  ms.push(Number(process.hrtime.bigint() - s) / 1e6);
  if (gap > 0) await new Promise((r) => setTimeout(r, gap));
}
const secs = Number(process.hrtime.bigint() - t0) / 1e9;
ms.sort((a, b) => a - b);
const q = (p) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))].toFixed(2);
console.log(JSON.stringify({ root, n, gap_ms: gap, p50: q(0.5), p95: q(0.95), per_s: (n / secs).toFixed(1) }));
await app.close();
await rm(dir, { recursive: true, force: true });
