/**
 * Part `import` (issues 18 and 15): `context-graph import` of N memories from our JSONL into an
 * empty embedded data directory, run as the real CLI in a child process, side by side with
 * `store` calls over MCP (Streamable HTTP to a `serve` on another empty directory) in the same run.
 * With `--import-baseline <checkout>` (another built checkout, e.g. the commit before a change)
 * the same import and `store` calls run against it too, in the same run: imports one after the
 * other per size, then the `store` calls of each side, from --store-clients concurrent sessions.
 *
 * Reported per side and size: the write rate (records/s while batches commit), the time until
 * default search finds every memory (the CLI's first embedding pass, index replica caught up),
 * until every space holds every memory (the second pass), and until the deferred fingerprints
 * are computed, the wall time with start-up, and the child's CPU seconds (all
 * threads), peak RSS, and the feed check (no vector written twice); for `store`, p50/p95
 * latency and the rate over the wall time of all calls.
 *
 *   node dist/bench/part-import.js [--sizes 10000,100000] [--baseline ../base] [--baseline-max 10000] [--store-samples 300]
 *     [--baseline-store-samples N] [--store-clients 4]
 */
import { execFile, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, childEnv, CLI, httpClient, tempDir } from '../test/helpers/cli.js';
import { makeCorpus } from './corpus.js';
import { log } from './env.js';

export interface ImportRun {
  side: string;
  size: number;
  write_s: number;
  write_per_s: number;
  /** Until default search finds every memory (the first embedding pass; a CLI with one pass: every space). */
  searchable_s: number;
  searchable_per_s: number;
  /** Until every space holds every memory; the same as searchable for a CLI with one embedding pass. */
  every_space_s: number;
  every_space_per_s: number;
  /** Null when the side's CLI does not report it (it waited for every job before "searchable"). */
  fingerprints_s: number | null;
  wall_s: number;
  cpu_s: number | null;
  cpu_ms_per_memory: number | null;
  max_rss_mb: number | null;
  /** Vector rows written (nodes × spaces) and feed positions taken: a vector written twice takes extra positions. */
  vectors: number | null;
  feed_positions: number | null;
  summary: string;
}

export interface StoreRun {
  side: string;
  samples: number;
  /** Concurrent MCP clients (sessions), each calling `store` one after the other. */
  clients: number;
  /** Calls per second over the wall time of all calls (each acknowledged call is searchable). */
  per_s: number;
  wall_s: number;
  p50_ms: number;
  p95_ms: number;
}

export interface ImportBenchResult {
  sizes: number[];
  sides: Array<{ side: string; cli: string }>;
  runs: ImportRun[];
  /** Sizes skipped for a side (the baseline above --baseline-max), with the reason. */
  skipped: Array<{ side: string; size: number; reason: string }>;
  mcp_store: StoreRun[];
  goal_per_s: number;
}

/** Issue 15/18's ingestion goal, memories/s; the suite's Targets judge bulk, push and import by it too. */
export const INGEST_GOAL_PER_S = 2_000;

/** Seconds from the CLI's "m:ss (12.3 s)" when it gives the precise figure, else from m:ss / h:mm:ss. */
function secondsFrom(match: RegExpExecArray | null): number | null {
  if (!match) return null;
  if (match[2]) return Number(match[2]);
  return match[1]!
    .split(':')
    .map(Number)
    .reduce((acc, v) => acc * 60 + v, 0);
}

async function runImport(cli: string, file: string, dataDir: string): Promise<{ stdout: string; wall_s: number; cpu_s: number | null; max_rss_mb: number | null }> {
  const t0 = performance.now();
  // /usr/bin/time reports the child's CPU over all its threads and its peak RSS on stderr.
  const timed = process.platform === 'linux' ? ['/usr/bin/time', ['-f', 'CGTIME %U %S %M', process.execPath, cli]] : [process.execPath, [cli]];
  const [cmd, pre] = timed as [string, string[]];
  const env = childEnv({ CONTEXT_GRAPH_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
  return new Promise((done, reject) => {
    execFile(cmd, [...pre, 'import', file, '--batch', '1000'], { env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`${err.message}\n${stderr}`));
      const t = /CGTIME ([\d.]+) ([\d.]+) (\d+)/.exec(stderr);
      done({
        stdout,
        wall_s: (performance.now() - t0) / 1000,
        cpu_s: t ? Number(t[1]) + Number(t[2]) : null,
        max_rss_mb: t ? Math.round(Number(t[3]) / 1024) : null,
      });
    });
  });
}

/**
 * Every vector write takes a feed position (the embeddings' feed_seq), a rewrite of the same
 * (node, space) two more: so on a fresh directory, positions = rows means no memory was
 * embedded twice. Read from the stopped directory with PGlite itself.
 */
async function feedCheck(dataDir: string): Promise<{ vectors: number; feed_positions: number } | null> {
  try {
    const pg = await PGlite.create(join(dataDir, 'pg'), { extensions: { pg_trgm } });
    try {
      const [row] = (
        await pg.query<{ rows: number; seq: number }>(`select (select count(*)::int from embeddings) as rows, (select last_value::int from embedding_feed_seq) as seq`)
      ).rows;
      return { vectors: Number(row!.rows), feed_positions: Number(row!.seq) };
    } finally {
      await pg.close();
    }
  } catch (err) {
    log(`import: feed check failed: ${(err as Error).message}`);
    return null;
  }
}

async function importOnce(side: string, cli: string, size: number, file: string, dataDir: string): Promise<ImportRun> {
  log(`import: ${side}, ${size} memories from JSONL (embedded)`);
  const run = await runImport(cli, file, dataDir);
  const feed = await feedCheck(dataDir);
  const write_s = secondsFrom(/records in ([\d:]+)(?: \([\d,]+ records\/s, ([\d.]+) s\))?/.exec(run.stdout));
  const searchable_s = secondsFrom(/all searchable after ([\d:]+)(?: \(([\d.]+) s\))?/.exec(run.stdout));
  if (write_s === null || searchable_s === null) throw new Error(`unexpected import output (${side}):\n${run.stdout}`);
  const every_space_s = secondsFrom(/every space embedded after ([\d:]+)(?: \(([\d.]+) s\))?/.exec(run.stdout)) ?? searchable_s;
  const rate = (s: number) => Math.round(size / Math.max(s, 0.1));
  return {
    side,
    size,
    write_s,
    write_per_s: rate(write_s),
    searchable_s,
    searchable_per_s: rate(searchable_s),
    every_space_s,
    every_space_per_s: rate(every_space_s),
    fingerprints_s: secondsFrom(/fingerprints computed after ([\d:]+)(?: \(([\d.]+) s\))?/.exec(run.stdout)),
    wall_s: Math.round(run.wall_s * 10) / 10,
    cpu_s: run.cpu_s,
    cpu_ms_per_memory: run.cpu_s === null ? null : Math.round((run.cpu_s * 1000 * 100) / size) / 100,
    max_rss_mb: run.max_rss_mb,
    vectors: feed?.vectors ?? null,
    feed_positions: feed?.feed_positions ?? null,
    summary: run.stdout.trim(),
  };
}

/** `serve` of a checkout's CLI on an empty directory; resolves with its MCP URL and a stopper. */
async function serve(cli: string, dataDir: string): Promise<{ mcpUrl: string; stop(): Promise<void> }> {
  const proc = spawn(process.execPath, [cli, 'serve', '--port', '0'], {
    env: childEnv({ CONTEXT_GRAPH_DATA_DIR: dataDir, LOG_LEVEL: 'warn' }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const mcpUrl = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`serve did not start:\n${err}`)), 120_000);
    proc.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /listening on (http:\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        ok(m[1]!);
      }
    });
    proc.on('exit', (code) => fail(new Error(`serve exited with ${code}:\n${err}`)));
  });
  return {
    mcpUrl,
    stop: () =>
      new Promise((done) => {
        proc.once('exit', () => done());
        proc.kill('SIGTERM');
      }),
  };
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

/**
 * `store` calls over MCP (Streamable HTTP) to a `serve` of the side's CLI on an empty directory,
 * from `clients` concurrent sessions (what several agents writing at once do), each calling one
 * after the other until `samples` calls are done. Sides run one after the other.
 */
async function storeCalls(side: { side: string; cli: string }, samples: number, clients: number, seed: number, root: string): Promise<StoreRun> {
  log(`import: ${samples} store calls over MCP from ${clients} clients (${side.side})`);
  const server = await serve(side.cli, join(root, `stored-${side.side}`));
  try {
    const sessions: Client[] = [];
    for (let i = 0; i < clients; i++) sessions.push(await httpClient(server.mcpUrl, `bench-import-${i}`));
    // A few calls first: the first store of a process loads what later calls reuse.
    for (const m of makeCorpus(5, seed + 2)) await call(sessions[0]!, 'store', { content: `${m.content} warm`, topic: m.topic, tags: m.tags });
    const corpus = makeCorpus(samples, seed + 1);
    const latencies: number[] = [];
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      sessions.map(async (client) => {
        for (let k = next++; k < corpus.length; k = next++) {
          const m = corpus[k]!;
          const t = performance.now();
          const r = await call(client, 'store', { content: m.content, topic: m.topic, tags: m.tags });
          latencies.push(performance.now() - t);
          if (r.isError) throw new Error(`store failed (${side.side}): ${JSON.stringify(r.content)}`);
          if (k % 5000 === 4999) log(`import: ${k + 1} store calls (${side.side})`);
        }
      }),
    );
    const wall = (performance.now() - t0) / 1000;
    for (const c of sessions) await c.close();
    return {
      side: side.side,
      samples: latencies.length,
      clients,
      per_s: Math.round((latencies.length / wall) * 10) / 10,
      wall_s: Math.round(wall * 10) / 10,
      p50_ms: Math.round(pct(latencies, 50) * 10) / 10,
      p95_ms: Math.round(pct(latencies, 95) * 10) / 10,
    };
  } finally {
    await server.stop();
  }
}

export async function runImportBench(opts: {
  sizes: number[];
  storeSamples: number;
  /** `store` calls against the baseline (default: storeSamples). */
  baselineStoreSamples?: number;
  storeClients?: number;
  seed: number;
  baseline?: string | null;
  baselineMax?: number;
}): Promise<ImportBenchResult> {
  const sides = [...(opts.baseline ? [{ side: 'baseline', cli: join(resolve(opts.baseline), 'dist', 'src', 'cli.js') }] : []), { side: 'current', cli: CLI }];
  const dir = await tempDir('cg-bench-import-');
  const runs: ImportRun[] = [];
  const skipped: ImportBenchResult['skipped'] = [];
  try {
    for (const size of opts.sizes) {
      const file = join(dir.path, `memories-${size}.jsonl`);
      await writeFile(
        file,
        makeCorpus(size, opts.seed)
          .map((m) => JSON.stringify({ type: 'memory', ...m }) + '\n')
          .join(''),
      );
      for (const s of sides) {
        if (s.side === 'baseline' && size > (opts.baselineMax ?? 10_000)) {
          skipped.push({ side: s.side, size, reason: `above --baseline-max ${opts.baselineMax ?? 10_000}` });
          continue;
        }
        runs.push(await importOnce(s.side, s.cli, size, file, join(dir.path, `imported-${s.side}-${size}`)));
      }
    }
    const mcp_store: StoreRun[] = [];
    for (const s of sides) {
      const samples = s.side === 'baseline' ? (opts.baselineStoreSamples ?? opts.storeSamples) : opts.storeSamples;
      if (samples > 0) mcp_store.push(await storeCalls(s, samples, opts.storeClients ?? 1, opts.seed, dir.path));
    }
    return { sizes: opts.sizes, sides, runs, skipped, mcp_store, goal_per_s: INGEST_GOAL_PER_S };
  } finally {
    await dir.remove();
  }
}

export function renderImportSummary(r: ImportBenchResult): string {
  const rows = r.runs.map(
    (x) =>
      `| ${x.side} | ${x.size.toLocaleString('en-US')} | ${x.write_per_s} (${x.write_s} s) | ${x.searchable_per_s} (${x.searchable_s} s) | ${x.every_space_per_s ?? '–'} (${x.every_space_s ?? '–'} s) | ${x.fingerprints_s ?? '–'} | ${x.wall_s} | ${x.cpu_ms_per_memory ?? '–'} | ${x.max_rss_mb ?? '–'} |`,
  );
  const store = r.mcp_store.map((s) => `| ${s.side} | ${s.samples.toLocaleString('en-US')} | ${s.clients ?? 1} | ${s.per_s} | ${s.wall_s ?? '–'} | ${s.p50_ms} | ${s.p95_ms} |`);
  const twice = (x: ImportRun) => (x.vectors === null || x.feed_positions === null ? '–' : `${x.feed_positions - x.vectors}`);
  const best = r.runs.filter((x) => x.side === 'current').sort((a, b) => b.size - a.size)[0];
  return [
    `## Import from JSONL (embedded, batches of 1,000) vs store over MCP`,
    '',
    '| side | memories | written/s (s) | searchable by default search /s (s) | every space /s (s) | fingerprints done (s) | wall (s) | CPU ms/memory | peak RSS MB | vectors | extra feed positions (0: none embedded twice) |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((row, i) => `${row} ${r.runs[i]!.vectors ?? '–'} | ${twice(r.runs[i]!)} |`),
    ...r.skipped.map((s) => `| ${s.side} | ${s.size.toLocaleString('en-US')} | not run: ${s.reason} | | | | | | | | |`),
    '',
    '| `store` over MCP HTTP | calls | concurrent clients | calls/s (each searchable when acknowledged) | wall (s) | p50 ms | p95 ms |',
    '|---|---|---|---|---|---|---|',
    ...store,
    '',
    best
      ? `Goal ≥ ${r.goal_per_s} memories/s: written ${best.write_per_s}/s ${best.write_per_s >= r.goal_per_s ? 'met' : '**not met**'}, until searchable ${best.searchable_per_s}/s ${best.searchable_per_s >= r.goal_per_s ? 'met' : '**not met**'}, until every space ${best.every_space_per_s}/s ${best.every_space_per_s >= r.goal_per_s ? 'met' : '**not met**'} (current, ${best.size.toLocaleString('en-US')}).`
      : '',
    '',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '10000' },
      baseline: { type: 'string' },
      'baseline-max': { type: 'string', default: '10000' },
      'store-samples': { type: 'string', default: '300' },
      'baseline-store-samples': { type: 'string' },
      'store-clients': { type: 'string', default: '4' },
      seed: { type: 'string', default: '42' },
    },
  });
  const result = await runImportBench({
    sizes: values.sizes.split(',').map(Number),
    storeSamples: Number(values['store-samples']),
    ...(values['baseline-store-samples'] ? { baselineStoreSamples: Number(values['baseline-store-samples']) } : {}),
    storeClients: Number(values['store-clients']),
    seed: Number(values.seed),
    baseline: values.baseline ?? null,
    baselineMax: Number(values['baseline-max']),
  });
  process.stdout.write(JSON.stringify(result, null, 2) + '\n\n' + renderImportSummary(result));
}
