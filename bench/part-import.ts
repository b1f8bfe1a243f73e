/**
 * Part `import` (issue 18): `context-graph import` of N memories from our JSONL into an empty
 * embedded data directory, run as the real CLI in a child process, side by side with `store`
 * calls over MCP (Streamable HTTP to a `serve` on another empty directory) in the same run.
 *
 * Reported: the import's write rate (records/s while batches commit), the time until every
 * memory is searchable (all embedding jobs done and the indexes caught up: what the CLI waits
 * for before it exits) and the wall time with start-up; for `store`, the rate of a measured
 * sample of sequential calls, and the time N calls would take at that rate.
 *
 *   node dist/bench/part-import.js [--size 100000] [--store-samples 500] [--seed 42]
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { call, childEnv, CLI, httpClient, startServe, tempDir } from '../test/helpers/cli.js';
import { makeCorpus } from './corpus.js';
import { log } from './env.js';

export interface ImportBenchResult {
  size: number;
  import: { write_s: number; write_per_s: number; searchable_s: number; searchable_per_s: number; wall_s: number; summary: string };
  mcp_store: { samples: number; seconds: number; per_s: number; projected_s_for_size: number };
  goal_per_s: number;
}

const GOAL_PER_S = 2_000;

/** Seconds from the CLI's m:ss or h:mm:ss. */
function seconds(text: string): number {
  return text
    .split(':')
    .map(Number)
    .reduce((acc, v) => acc * 60 + v, 0);
}

async function runCli(args: string[], env: Record<string, string>): Promise<{ stdout: string; stderr: string; wall_s: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLI, ...args], { env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message}\n${stderr}`));
      else resolve({ stdout, stderr, wall_s: (performance.now() - t0) / 1000 });
    });
  });
}

export async function runImportBench(opts: { size: number; storeSamples: number; seed: number }): Promise<ImportBenchResult> {
  const dir = await tempDir('cg-bench-import-');
  try {
    const file = join(dir.path, 'memories.jsonl');
    await writeFile(
      file,
      makeCorpus(opts.size, opts.seed)
        .map((m) => JSON.stringify({ type: 'memory', ...m }) + '\n')
        .join(''),
    );
    log(`import: ${opts.size} memories from JSONL (embedded)`);
    const run = await runCli(['import', file, '--batch', '1000'], childEnv({ CONTEXT_GRAPH_DATA_DIR: join(dir.path, 'imported'), LOG_LEVEL: 'warn' }));
    const written = /from ([\d,]+) records in ([\d:]+)/.exec(run.stdout);
    const searchable = /all searchable after ([\d:]+)/.exec(run.stdout);
    if (!written || !searchable) throw new Error(`unexpected import output:\n${run.stdout}\n${run.stderr}`);
    const write_s = seconds(written[2]!);
    const searchable_s = seconds(searchable[1]!);

    log(`import: ${opts.storeSamples} store calls over MCP (Streamable HTTP)`);
    const server = await startServe(childEnv({ CONTEXT_GRAPH_DATA_DIR: join(dir.path, 'stored'), LOG_LEVEL: 'warn' }));
    let store_s: number;
    try {
      const client = await httpClient(server.mcpUrl);
      const sample = makeCorpus(opts.storeSamples, opts.seed + 1);
      const t0 = performance.now();
      for (const m of sample) {
        const r = await call(client, 'store', { content: m.content, topic: m.topic, tags: m.tags });
        if (r.isError) throw new Error(`store failed: ${JSON.stringify(r.content)}`);
      }
      store_s = (performance.now() - t0) / 1000;
      await client.close();
    } finally {
      await server.stop();
    }
    const store_per_s = opts.storeSamples / store_s;
    return {
      size: opts.size,
      import: {
        write_s,
        write_per_s: Math.round(opts.size / Math.max(write_s, 1)),
        searchable_s,
        searchable_per_s: Math.round(opts.size / Math.max(searchable_s, 1)),
        wall_s: Math.round(run.wall_s),
        summary: run.stdout.trim(),
      },
      mcp_store: {
        samples: opts.storeSamples,
        seconds: Math.round(store_s * 10) / 10,
        per_s: Math.round(store_per_s * 10) / 10,
        projected_s_for_size: Math.round(opts.size / store_per_s),
      },
      goal_per_s: GOAL_PER_S,
    };
  } finally {
    await dir.remove();
  }
}

export function renderImportSummary(r: ImportBenchResult): string {
  const met = r.import.searchable_per_s >= r.goal_per_s;
  return [
    `## Import (${r.size.toLocaleString('en-US')} memories from JSONL, embedded) vs store over MCP`,
    '',
    '| path | memories/s | time for all | searchable |',
    '|---|---|---|---|',
    `| \`context-graph import\` (batches of 1,000) | ${r.import.write_per_s} written, ${r.import.searchable_per_s} until searchable | ${r.import.searchable_s} s (wall with start-up ${r.import.wall_s} s) | after ${r.import.searchable_s} s |`,
    `| \`store\` over MCP HTTP, ${r.mcp_store.samples} sequential calls | ${r.mcp_store.per_s} | ${r.mcp_store.projected_s_for_size} s projected | each call waits for its vectors |`,
    '',
    `Goal ≥ ${r.goal_per_s} memories/s until searchable: ${met ? 'met' : '**not met**'}; import is ${Math.round((r.import.searchable_per_s / r.mcp_store.per_s) * 10) / 10}× the MCP store rate.`,
    '',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { size: { type: 'string', default: '100000' }, 'store-samples': { type: 'string', default: '500' }, seed: { type: 'string', default: '42' } },
  });
  const result = await runImportBench({ size: Number(values.size), storeSamples: Number(values['store-samples']), seed: Number(values.seed) });
  process.stdout.write(JSON.stringify(result, null, 2) + '\n\n' + renderImportSummary(result));
}
