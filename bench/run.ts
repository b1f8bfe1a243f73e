/**
 * First benchmark (foundation issue): store throughput and latency, and query latency
 * p50/p95/p99 at N memories in embedded mode, in process and through the MCP HTTP round trip.
 *
 *   npm run bench -- [--size 10000] [--queries 500] [--seed 42] [--parts inprocess,http]
 *
 * Writes bench/results/<date>/foundation.json and prints a summary. Timings are wall clock on
 * this machine; compare figures only within one run.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { packageRoot } from '../src/paths.js';
import { call, childEnv, httpClient, startServe, tempDir } from '../test/helpers/cli.js';
import { makeCorpus, makeQueries, type Memory } from './corpus.js';
import { summarize, timed } from './stats.js';

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '10000' },
    queries: { type: 'string', default: '500' },
    seed: { type: 'string', default: '42' },
    parts: { type: 'string', default: 'inprocess,http' },
    out: { type: 'string' },
  },
});
const size = Number(values.size);
const queryCount = Number(values.queries);
const seed = Number(values.seed);
const parts = new Set(values.parts!.split(','));

function progress(label: string, done: number, total: number): void {
  if (done % Math.max(1, Math.floor(total / 20)) === 0 || done === total) process.stderr.write(`\r${label}: ${done}/${total}   `);
  if (done === total) process.stderr.write('\n');
}

interface PartResult {
  store: { throughput_per_s: number; latency: ReturnType<typeof summarize> };
  query: { latency: ReturnType<typeof summarize>; hit_rate_top5: number };
}

async function runPart(label: string, store: (m: Memory) => Promise<void>, query: (q: string) => Promise<string[]>, corpus: Memory[], queries: string[]): Promise<PartResult> {
  const storeMs: number[] = [];
  const start = process.hrtime.bigint();
  for (let i = 0; i < corpus.length; i++) {
    storeMs.push(await timed(() => store(corpus[i]!)));
    progress(`${label} store`, i + 1, corpus.length);
  }
  const totalS = Number(process.hrtime.bigint() - start) / 1e9;
  const queryMs: number[] = [];
  let nonEmpty = 0;
  for (let i = 0; i < queries.length; i++) {
    let ids: string[] = [];
    queryMs.push(await timed(async () => (ids = await query(queries[i]!))));
    if (ids.length > 0) nonEmpty++;
    progress(`${label} query`, i + 1, queries.length);
  }
  return {
    store: { throughput_per_s: Math.round((corpus.length / totalS) * 10) / 10, latency: summarize(storeMs) },
    query: { latency: summarize(queryMs), hit_rate_top5: nonEmpty / queries.length },
  };
}

async function inProcess(corpus: Memory[], queries: string[]): Promise<PartResult> {
  const dir = await tempDir('cg-bench-');
  const logger = createLogger('warn');
  const app = await createApp(loadConfig({ CONTEXT_GRAPH_DATA_DIR: dir.path }), logger);
  try {
    return await runPart(
      'in-process',
      async (m) => void (await app.memory.store({ ...m, project_id: 'bench', memory_type: 'semantic' })),
      async (q) => (await app.search.hybrid({ text: q, limit: 5 })).map((h) => h.node.id),
      corpus,
      queries,
    );
  } finally {
    await app.close();
    await dir.remove();
  }
}

async function overHttp(corpus: Memory[], queries: string[]): Promise<PartResult> {
  const dir = await tempDir('cg-bench-');
  const server = await startServe(childEnv({ CONTEXT_GRAPH_DATA_DIR: dir.path, LOG_LEVEL: 'warn' }));
  const client = await httpClient(server.mcpUrl, 'bench');
  try {
    return await runPart(
      'mcp-http',
      async (m) => {
        const r = await call(client, 'store', { ...m, project_id: 'bench' });
        if (r.isError) throw new Error(JSON.stringify(r.content));
      },
      async (q) => ((await call(client, 'query', { query: q, limit: 5 })).structuredContent as { items: Array<{ id: string }> }).items.map((i) => i.id),
      corpus,
      queries,
    );
  } finally {
    await client.close();
    await server.stop();
    await dir.remove();
  }
}

const corpus = makeCorpus(size, seed);
const queries = makeQueries(queryCount, seed);
const results: Record<string, PartResult> = {};
if (parts.has('inprocess')) results.in_process = await inProcess(corpus, queries);
if (parts.has('http')) results.mcp_http = await overHttp(corpus, queries);

const report = {
  benchmark: 'foundation',
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, cpu_model: cpus()[0]?.model, memory_gb: Math.round(totalmem() / 2 ** 30), node: process.version },
  mode: 'embedded (PGlite, in-process queue, model-free encoders E1 + E9)',
  size,
  queries: queryCount,
  seed,
  results,
};
const outDir = values.out ?? join(packageRoot(), 'bench', 'results', report.date.slice(0, 10));
await mkdir(outDir, { recursive: true });
await writeFile(join(outDir, 'foundation.json'), JSON.stringify(report, null, 2) + '\n');
process.stdout.write(JSON.stringify(report, null, 2) + '\n');
process.stderr.write(`written to ${join(outDir, 'foundation.json')}\n`);
