/**
 * Parts `write`, `read` and `memory` (model-free encoders): one embedded store grown through
 * the sizes. At each size:
 *  - write: `store` latency on the live path (MemoryService.store, waiting for its vectors as
 *    embedded mode does), `rounds` × `storeSamples` calls; the bulk load that grew the store to
 *    this size gives ingest throughput (path named in the output);
 *  - read: hybrid search latency in process, then through real MCP clients (Streamable HTTP and
 *    stdio, each a fresh server process on the same data dir), and N concurrent HTTP clients;
 *  - memory: the serve process's resident memory after its queries, minus an empty server's,
 *    per memory; and data-dir bytes per memory.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../src/app.js';
import { httpClient, startServe, stdioClient, tempDir } from '../test/helpers/cli.js';
import { openBenchApp, serverEnv } from './app.js';
import { makeCorpus, makeQueries } from './corpus.js';
import { dirBytes, log, rssOf } from './env.js';
import { bulkLoad, pushLoader, storeLoop, type LoadRate } from './load.js';
import { repeatedLatency, summarize, type LatencySummary, type RepeatedLatency } from './stats.js';

export interface ScaleStep {
  size: number;
  load: LoadRate | null;
  store?: { latency: RepeatedLatency; live_per_s: number };
  read?: {
    in_process: RepeatedLatency;
    mcp_http?: RepeatedLatency;
    mcp_stdio?: RepeatedLatency;
    concurrency?: Array<{ clients: number; total_queries: number; throughput_qps: number; latency: LatencySummary }>;
  };
  /** Why the MCP stage measured nothing (its in-process figures stand). */
  mcp_error?: string;
  /** Seconds from spawning `serve` on the closed store until it listens (index snapshots loaded). */
  serve_start_s?: number;
  /** Seconds from a `stdio` client's connect until its first `search` answered (the store opened meanwhile). */
  stdio_first_call_s?: number;
  memory?: { serve_rss_bytes: number | null; serve_rss_over_empty_bytes_per_memory: number | null; data_dir_bytes: number; data_dir_bytes_per_memory: number };
}

export interface ScaleResult {
  mode: string;
  sizes: number[];
  mcp_sizes: number[];
  store_samples_per_round: number;
  queries_per_round: number;
  rounds: number;
  /** A fresh `serve`'s RSS 10 s after it listens, before any call (issue 15's idle footprint). */
  idle_serve_rss_bytes?: number | null;
  /** The same process after 20 searches. */
  empty_serve_rss_bytes: number | null;
  push: LoadRate | null;
  steps: ScaleStep[];
}

/** Chunks pushed for the `push` rate (each corpus sentence one chunk), on a store of their own. */
const PUSH_ITEMS = 2000;
/** How long a fresh `serve` idles before its RSS is read (as bench/footprint-idle.sh's first figure). */
const IDLE_WAIT_MS = 10_000;

async function queueIdle(app: App): Promise<void> {
  await app.services.pendingVectors.settled();
  for (;;) {
    const c = await app.queue.counts();
    if (c.waiting + c.active === 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function rounds(n: number, fn: (round: number) => Promise<number[]>): Promise<number[][]> {
  const out: number[][] = [];
  for (let r = 0; r < n; r++) out.push(await fn(r));
  return out;
}

/** Per-round time budget for query loops (set by runScale): a round stops early, after at least 10 queries, once spent. */
let roundBudgetMs = Infinity;

async function timeQueries(queries: readonly string[], run: (q: string) => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  const deadline = Date.now() + roundBudgetMs;
  for (const q of queries) {
    if (ms.length >= 10 && Date.now() > deadline) break;
    const t0 = process.hrtime.bigint();
    await run(q);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return ms;
}

async function mcpQuery(client: Client, q: string, timeoutMs?: number): Promise<void> {
  // `search` is the retrieval call agents make; `query` without a filter answers a broad question
  // with needsInput (seed 003), which would time a different path than the in-process figure.
  const r = (await client.callTool({ name: 'search', arguments: { query_text: q, limit: 5 } }, undefined, timeoutMs ? { timeout: timeoutMs } : {})) as CallToolResult;
  if (r.isError) throw new Error(`search failed: ${JSON.stringify(r.content).slice(0, 300)}`);
}

export async function runScale(opts: {
  sizes: number[];
  mcpSizes: number[];
  storeSamples: number;
  queries: number;
  rounds: number;
  clients: number[];
  seed: number;
  parts: { write: boolean; read: boolean; memory: boolean };
  /** Time budget per query round, seconds (rounds that hit it report fewer samples: see `n`). */
  roundBudgetS?: number;
}): Promise<ScaleResult> {
  roundBudgetMs = (opts.roundBudgetS ?? Infinity) * 1000;
  const sizes = [...opts.sizes].sort((a, b) => a - b);
  const extra = opts.parts.write ? sizes.length * opts.rounds * opts.storeSamples : 0;
  const corpus = makeCorpus(sizes[sizes.length - 1]! + extra + 10, opts.seed);
  const queries = makeQueries(opts.queries, opts.seed);
  const dir = await tempDir('cg-bench-scale-');
  const result: ScaleResult = {
    mode: 'embedded: PGlite, in-process queue, the default encoders (E1 bundled GloVe, every enabled space of the 13 embedded by the job)',
    sizes,
    mcp_sizes: opts.mcpSizes,
    store_samples_per_round: opts.storeSamples,
    queries_per_round: opts.queries,
    rounds: opts.rounds,
    idle_serve_rss_bytes: null,
    empty_serve_rss_bytes: null,
    push: null,
    steps: [],
  };
  try {
    if (opts.parts.memory) {
      const empty = await tempDir('cg-bench-empty-');
      const server = await startServe(serverEnv(empty.path));
      await new Promise((r) => setTimeout(r, IDLE_WAIT_MS));
      result.idle_serve_rss_bytes = rssOf(server.proc.pid!);
      log(`scale: idle serve RSS ${Math.round((result.idle_serve_rss_bytes ?? 0) / 2 ** 20)} MiB`);
      const client = await httpClient(server.mcpUrl, 'bench-empty');
      await timeQueries(queries.slice(0, 20), (q) => mcpQuery(client, q));
      result.empty_serve_rss_bytes = rssOf(server.proc.pid!);
      await client.close();
      await server.stop();
      await empty.remove();
    }
    /** Query latency through real MCP clients (HTTP, N concurrent HTTP, stdio) and the serve process's memory, on the closed store. */
    const mcpStage = async (step: ScaleStep, size: number): Promise<void> => {
      // Start-up loads every space's index snapshot first: allow ~1 ms per memory.
      const started = Date.now();
      const server = await startServe(serverEnv(dir.path), [], { timeoutMs: Math.max(120_000, size) });
      step.serve_start_s = Math.round((Date.now() - started) / 100) / 10;
      log(`scale ${size}: serve listened after ${step.serve_start_s} s`);
      try {
        const client = await httpClient(server.mcpUrl, 'bench-http');
        await timeQueries(queries.slice(0, 20), (q) => mcpQuery(client, q)); // warm-up
        if (opts.parts.read) {
          step.read!.mcp_http = repeatedLatency(await rounds(opts.rounds, () => timeQueries(queries, (q) => mcpQuery(client, q))));
          log(`scale ${size}: MCP HTTP query p50 ${step.read!.mcp_http.p50_ms.median} p95 ${step.read!.mcp_http.p95_ms.median} ms`);
          step.read!.concurrency = [];
          for (const n of opts.clients) {
            const clients = await Promise.all(Array.from({ length: n }, (_, i) => httpClient(server.mcpUrl, `bench-c${i}`)));
            const per = Math.max(1, Math.ceil(queries.length / n));
            const all: number[] = [];
            const t0 = process.hrtime.bigint();
            await Promise.all(
              clients.map(async (c, ci) =>
                all.push(
                  ...(await timeQueries(
                    queries.slice(0, per).map((_, j) => queries[(ci * per + j) % queries.length]!),
                    (q) => mcpQuery(c, q),
                  )),
                ),
              ),
            );
            const s = Number(process.hrtime.bigint() - t0) / 1e9;
            await Promise.all(clients.map((c) => c.close()));
            step.read!.concurrency.push({ clients: n, total_queries: all.length, throughput_qps: Math.round((all.length / s) * 10) / 10, latency: summarize(all) });
            log(`scale ${size}: ${n} HTTP clients ${Math.round(all.length / s)} q/s p95 ${summarize(all).p95_ms} ms`);
          }
        }
        if (opts.parts.memory) {
          const rss = rssOf(server.proc.pid!);
          const bytes = await dirBytes(dir.path);
          step.memory = {
            serve_rss_bytes: rss,
            serve_rss_over_empty_bytes_per_memory: rss !== null && result.empty_serve_rss_bytes !== null ? Math.round((rss - result.empty_serve_rss_bytes) / stored) : null,
            data_dir_bytes: bytes,
            data_dir_bytes_per_memory: Math.round(bytes / stored),
          };
          log(`scale ${size}: serve RSS ${Math.round((rss ?? 0) / 2 ** 20)} MiB, data dir ${Math.round(bytes / 2 ** 20)} MiB`);
        }
        await client.close();
      } finally {
        await server.stop();
      }
      if (opts.parts.read) {
        const { client, transport } = await stdioClient(serverEnv(dir.path), 'bench-stdio');
        try {
          // `stdio` answers initialize at once and holds the first call until the store is open,
          // which on a large store outlasts the SDK's 60 s request timeout: timed, and waited for.
          const opened = Date.now();
          await mcpQuery(client, queries[0]!, Math.max(60_000, size));
          step.stdio_first_call_s = Math.round((Date.now() - opened) / 100) / 10;
          log(`scale ${size}: stdio's first call answered after ${step.stdio_first_call_s} s`);
          await timeQueries(queries.slice(0, 20), (q) => mcpQuery(client, q));
          step.read!.mcp_stdio = repeatedLatency(await rounds(opts.rounds, () => timeQueries(queries, (q) => mcpQuery(client, q))));
          log(`scale ${size}: MCP stdio query p50 ${step.read!.mcp_stdio.p50_ms.median} p95 ${step.read!.mcp_stdio.p95_ms.median} ms`);
        } finally {
          await client.close();
          void transport;
        }
      }
    };
    if (opts.parts.write) {
      result.push = await pushLoader(corpus.slice(0, PUSH_ITEMS));
      log(`scale: push ${result.push.per_s} memories/s (${PUSH_ITEMS} chunks, own store)`);
    }
    let app: App = await openBenchApp(dir.path);
    let cursor = 0;
    let stored = 0;
    try {
      for (const size of sizes) {
        const step: ScaleStep = { size, load: null };
        const need = size - stored;
        if (need > 0) {
          log(`scale: bulk-loading ${need} memories to reach ${size}`);
          const items = corpus.slice(cursor, cursor + need);
          cursor += need;
          const every = Math.max(5000, Math.floor(need / 10));
          const loaded = await bulkLoad(app, items, { onProgress: (d) => d % every === 0 && log(`scale: loaded ${d}/${need}`) });
          step.load = { path: loaded.path, seconds: loaded.seconds, per_s: loaded.per_s, count: need };
          stored += need;
          log(`scale: bulk load ${loaded.per_s} memories/s`);
        }
        if (opts.parts.write) {
          let live = 0;
          let liveS = 0;
          const r = await rounds(opts.rounds, async () => {
            const samples: number[] = [];
            const res = await storeLoop(app, corpus.slice(cursor, cursor + opts.storeSamples), { samples });
            cursor += opts.storeSamples;
            live += opts.storeSamples;
            liveS += res.seconds;
            return samples;
          });
          stored += live;
          step.store = { latency: repeatedLatency(r), live_per_s: Math.round((live / liveS) * 10) / 10 };
          log(`scale ${size}: store p50 ${step.store.latency.p50_ms.median} p95 ${step.store.latency.p95_ms.median} ms`);
        }
        if (opts.parts.read) {
          // Queries are timed on a settled store: the background work of the stores above (their
          // fingerprint, edge and graph jobs) finishes first, as it does between an agent's turns.
          await queueIdle(app);
          const r = await rounds(opts.rounds, () => timeQueries(queries, (q) => app.services.search.hybrid({ text: q, limit: 5, scoreThreshold: 0.25 })));
          step.read = { in_process: repeatedLatency(r) };
          log(`scale ${size}: in-process query p50 ${step.read.in_process.p50_ms.median} p95 ${step.read.in_process.p95_ms.median} ms`);
        }
        const mcpHere = opts.mcpSizes.includes(size) && (opts.parts.read || opts.parts.memory);
        if (mcpHere) {
          await app.close();
          // A failed MCP stage (a server that does not start in time on a large store, say) is
          // recorded in the step, and the run goes on with what it measured in process.
          try {
            await mcpStage(step, size);
          } catch (err) {
            step.mcp_error = err instanceof Error ? err.message.slice(0, 500) : String(err);
            log(`scale ${size}: MCP stage failed: ${step.mcp_error}`);
          }
          app = await openBenchApp(dir.path);
        }
        result.steps.push(step);
      }
    } finally {
      await app.close();
    }
    return result;
  } finally {
    await dir.remove();
  }
}
