// Where the curation tools' time goes, in process, against any built checkout and data dir:
//   node bench/profile-curation.mjs <checkout> <data dir> [samples=30] [--back-to-back]
// Opens the embedded app on <data dir> (use a copy: the calls write to it) and drives the
// sequence of bench/part-curation.ts through an MCP client over the in-memory transport
// (annotate, boost, forget, merge, lineage, citation, tombstones per sample; then a restore of
// every forget), on the same nodes of the store in every checkout (live memories of project
// `bench` in nid order, strided). Per tool: p50/p95 wall to the answer, process CPU ms (all
// threads) to the answer and until the work it queued is done, statements to the answer and in
// the background after it, by their first words. By default each call waits for the queue to
// drain before the next (so the background of one call is charged to it, not to the next);
// --back-to-back runs them as the bench does and charges whatever runs to the call it overlaps.
/* global performance, setTimeout */
import { join } from 'node:path';

const args = process.argv.slice(2);
const backToBack = args.includes('--back-to-back');
const [root, dir, nArg] = args.filter((a) => !a.startsWith('--'));
if (!root || !dir) throw new Error('usage: node bench/profile-curation.mjs <checkout> <data dir> [samples] [--back-to-back]');
const samples = Number(nArg ?? 30);
const from = (p) => import(join(root, 'dist', p));
const { openBenchApp } = await from('bench/app.js');
const { citation } = await from('src/ids.js');
const { createMcpServer } = await from('src/mcp/server.js');
const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');

const app = await openBenchApp(dir, null);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Statement accounting: every query through the Db (and its transactions) is charged to `phase`.
let phase = null;
const stats = new Map(); // phase -> Map(key -> {calls, ms})
const add = (key, ms) => {
  if (!phase) return;
  const m = stats.get(phase) ?? new Map();
  const s = m.get(key) ?? { calls: 0, ms: 0 };
  s.calls++;
  s.ms += ms;
  m.set(key, s);
  stats.set(phase, m);
};
const whoSeen = new Set();
const sqlKey = (text) => text.trim().replace(/\s+/g, ' ').split(' ').slice(0, 6).join(' ').slice(0, 70);
const wrapQuery = (obj) => {
  const f = obj.query.bind(obj);
  obj.query = async (text, ...rest) => {
    // PROFILE_WHO=<start of a statement>: print where it is issued from, once.
    if (process.env.PROFILE_WHO && phase && sqlKey(text).startsWith(process.env.PROFILE_WHO) && !whoSeen.has(phase)) {
      whoSeen.add(phase);
      console.error(phase, new Error('issued from').stack);
    }
    const t0 = performance.now();
    try {
      return await f(text, ...rest);
    } finally {
      add(sqlKey(text), performance.now() - t0);
    }
  };
};
wrapQuery(app.db);
const transaction = app.db.transaction.bind(app.db);
app.db.transaction = (fn) => transaction((tx) => (wrapQuery(tx), add('BEGIN…COMMIT', 0), fn(tx)));

const mcp = createMcpServer(app, { actor: 'profile-curation' });
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await mcp.connect(serverSide);
const client = new Client({ name: 'profile-curation', version: '1' });
await client.connect(clientSide);
await client.callTool({ name: 'toolsets', arguments: { enable: ['curation', 'metacognitive', 'diagnostic'] } });

const ids = (await app.db.query(`select id from nodes where deleted_at is null and project_id = 'bench' order by nid`)).map((r) => r.id);
const stride = Math.max(1, Math.floor(ids.length / (samples * 6)));
const pick = (i) => ids[(i * stride) % ids.length];

async function idle() {
  // The queue drained twice in a row 10 ms apart, then the replica's follow-up pulls.
  for (let quiet = 0; quiet < 2;) {
    const c = await app.queue.counts();
    quiet = c.waiting + c.active === 0 ? quiet + 1 : 0;
    await sleep(10);
  }
}

const per = new Map(); // tool -> {wall: [], cpuAnswer: [], cpuTotal: []}
async function timed(name, a) {
  const rec = per.get(name) ?? { wall: [], cpuAnswer: [], cpuTotal: [], calls: 0 };
  per.set(name, rec);
  phase = `${name}|answer`;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await client.callTool({ name, arguments: a });
  rec.wall.push(performance.now() - t0);
  const c1 = process.cpuUsage(c0);
  rec.cpuAnswer.push((c1.user + c1.system) / 1000);
  rec.calls++;
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content).slice(0, 300)}`);
  if (!backToBack) {
    phase = `${name}|background`;
    await idle();
    const c2 = process.cpuUsage(c0);
    rec.cpuTotal.push((c2.user + c2.system) / 1000);
  }
  phase = null;
  return r.structuredContent ?? {};
}

// Warm-up: the whole sequence once on nodes outside the measured ones (the end of the list).
{
  const w = (i) => ids[ids.length - 1 - i];
  await timed('annotate_node', { node_id: w(0), annotations: { tags: ['warm'] } });
  await timed('boost_importance', { node_id: w(1), delta: 0.1, rationale: 'warm-up boost of a node' });
  const f = await timed('forget_concept', { node_id: w(2), reason: 'obsolete', rationale: 'warm-up soft delete' });
  await timed('merge_concepts', { source_node_ids: [w(3), w(4)], target_name: 'warm-up merge', force_merge: true, rationale: 'warm-up merge of two nodes' });
  await timed('get_node_lineage', { node_id: w(0) });
  await timed('hydrate_citation', { citation_tag: citation(w(1)) });
  await timed('search_tombstones', { query: 'the', limit: 20 });
  await timed('restore_from_hash', { reversal_hash: f.reversal_hash });
  per.clear();
  stats.clear();
}

const hashes = [];
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < samples; i++) {
  const base = i * 6;
  await timed('annotate_node', { node_id: pick(base), annotations: { tags: ['bench'], domain: 'Research', notes: `sample ${i}` } });
  await timed('boost_importance', { node_id: pick(base + 1), delta: 0.1, rationale: 'benchmark boost of a sample' });
  const f = await timed('forget_concept', { node_id: pick(base + 2), reason: 'obsolete', rationale: 'benchmark soft delete' });
  hashes.push(f.reversal_hash);
  await timed('merge_concepts', {
    source_node_ids: [pick(base + 3), pick(base + 4)],
    target_name: `bench merge ${i}`,
    force_merge: true,
    rationale: 'benchmark merge of two samples',
  });
  await timed('get_node_lineage', { node_id: pick(base) });
  await timed('hydrate_citation', { citation_tag: citation(pick(base + 1)) });
  await timed('search_tombstones', { query: 'the', limit: 20 });
}
for (const h of hashes) await timed('restore_from_hash', { reversal_hash: h });
await idle();
const cpuAll = process.cpuUsage(cpu0);
const wallAll = performance.now() - t0;
await client.close();
await app.close();

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))] * 10) / 10 : NaN;
};
const mean = (xs) => (xs.length ? Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 10) / 10 : NaN);
console.log(
  `${root} on ${dir}: ${ids.length} live memories, ${samples} samples, ${backToBack ? 'back to back' : 'each call settled'}; ` +
    `all calls: ${Math.round(wallAll)} ms wall, ${Math.round((cpuAll.user + cpuAll.system) / 1000)} ms CPU`,
);
console.log('| tool | wall p50 / p95 ms | CPU ms to answer (mean) | CPU ms with background (mean) | statements to answer | statements after |');
console.log('|---|---|---|---|---|---|');
const count = (key) => [...(stats.get(key)?.values() ?? [])].reduce((n, s) => n + s.calls, 0);
for (const [name, rec] of per) {
  console.log(
    `| ${name} | ${pct(rec.wall, 0.5)} / ${pct(rec.wall, 0.95)} | ${mean(rec.cpuAnswer)} | ${backToBack ? '–' : mean(rec.cpuTotal)} | ${(count(`${name}|answer`) / rec.calls).toFixed(1)} | ${(count(`${name}|background`) / rec.calls).toFixed(1)} |`,
  );
}
for (const [name, rec] of per) {
  for (const part of ['answer', 'background']) {
    const m = stats.get(`${name}|${part}`);
    if (!m) continue;
    console.log(`\n${name} (${part}), per call:`);
    for (const [k, s] of [...m].sort((a, b) => b[1].ms - a[1].ms))
      console.log(`${(s.ms / rec.calls).toFixed(2).padStart(8)} ms ${(s.calls / rec.calls).toFixed(2).padStart(6)}×  ${k}`);
  }
}
