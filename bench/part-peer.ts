/**
 * Part `peer`: the official @modelcontextprotocol/server-memory (a dev dependency) and our
 * server, both as MCP stdio servers driven by the SDK client, on the same memories and queries.
 * Writes: one `create_entities` (peer) or `store` (ours) per memory while the store grows;
 * latency is summarised over the last `window` writes before each checkpoint. Search:
 * `search_nodes` (peer, substring match) and `query` (ours) with the same query strings.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CLI, tempDir } from '../test/helpers/cli.js';
import { serverEnv } from './app.js';
import { makeCorpus, makeQueries } from './corpus.js';
import { log } from './env.js';
import { ratio, repeatedLatency, summarize, type LatencySummary, type RepeatedLatency } from './stats.js';

export interface PeerSide {
  writes: Array<{ size: number; latency: LatencySummary }>;
  write_per_s: number;
  search: RepeatedLatency;
  search_nonempty_rate: number;
}

export interface PeerResult {
  peer: { package: string; version: string; transport: 'stdio' };
  ours: { transport: 'stdio' };
  sizes: number[];
  window: number;
  peer_side: PeerSide;
  our_side: PeerSide;
  /** ours / peer (< 1 means ours is faster). */
  ratios: {
    write_p50: Array<{ size: number; ratio: number | null }>;
    write_p95: Array<{ size: number; ratio: number | null }>;
    search_p50: number | null;
    search_p95: number | null;
  };
}

function peerEntry(): { path: string; version: string } {
  const require = createRequire(import.meta.url);
  const pkgPath = require.resolve('@modelcontextprotocol/server-memory/package.json');
  const pkg = require(pkgPath) as { version: string };
  return { path: join(dirname(pkgPath), 'dist', 'index.js'), version: pkg.version };
}

async function connect(command: string, args: string[], env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'cg-bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, env, stderr: 'pipe' }));
  return client;
}

async function drive(
  label: string,
  client: Client,
  write: (i: number) => Promise<void>,
  search: (q: string) => Promise<boolean>,
  sizes: number[],
  window: number,
  queries: string[],
  rounds: number,
): Promise<PeerSide> {
  const max = Math.max(...sizes);
  const samples: number[] = [];
  const writes: PeerSide['writes'] = [];
  const start = process.hrtime.bigint();
  for (let i = 0; i < max; i++) {
    const t0 = process.hrtime.bigint();
    await write(i);
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (sizes.includes(i + 1)) {
      writes.push({ size: i + 1, latency: summarize(samples.slice(Math.max(0, i + 1 - window))) });
      log(`peer ${label}: ${i + 1} writes, p50 ${writes.at(-1)!.latency.p50_ms} ms`);
    }
  }
  const writePerS = max / (Number(process.hrtime.bigint() - start) / 1e9);
  const roundsMs: number[][] = [];
  let nonEmpty = 0;
  for (let r = 0; r < rounds; r++) {
    const ms: number[] = [];
    for (const q of queries) {
      const t0 = process.hrtime.bigint();
      const hit = await search(q);
      ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (r === 0 && hit) nonEmpty++;
    }
    roundsMs.push(ms);
  }
  void client;
  return { writes, write_per_s: Math.round(writePerS * 10) / 10, search: repeatedLatency(roundsMs), search_nonempty_rate: nonEmpty / queries.length };
}

export async function runPeer(opts: { sizes: number[]; window: number; queries: number; rounds: number; seed: number }): Promise<PeerResult> {
  const max = Math.max(...opts.sizes);
  const corpus = makeCorpus(max, opts.seed);
  const queries = makeQueries(opts.queries, opts.seed);
  const entry = peerEntry();
  const dir = await tempDir('cg-bench-peer-');
  try {
    log(`peer: server-memory ${entry.version}, ${max} writes`);
    const env: Record<string, string> = { ...serverEnv(dir.path), MEMORY_FILE_PATH: join(dir.path, 'peer-memory.jsonl') };
    const peer = await connect(process.execPath, [entry.path], env);
    let peerSide: PeerSide;
    try {
      peerSide = await drive(
        'server-memory',
        peer,
        async (i) => {
          const m = corpus[i]!;
          const r = (await peer.callTool({
            name: 'create_entities',
            arguments: { entities: [{ name: `memory-${i}`, entityType: m.topic, observations: [m.content] }] },
          })) as CallToolResult;
          if (r.isError) throw new Error(JSON.stringify(r.content));
        },
        async (q) => {
          const r = (await peer.callTool({ name: 'search_nodes', arguments: { query: q } })) as CallToolResult;
          return ((r.structuredContent as { entities?: unknown[] } | undefined)?.entities?.length ?? 0) > 0;
        },
        opts.sizes,
        opts.window,
        queries,
        opts.rounds,
      );
    } finally {
      await peer.close();
    }

    log(`peer: context-graph stdio, ${max} writes`);
    const ours = await connect(process.execPath, ['--enable-source-maps', CLI, 'stdio'], serverEnv(join(dir.path, 'ours')));
    let ourSide: PeerSide;
    try {
      ourSide = await drive(
        'context-graph',
        ours,
        async (i) => {
          const m = corpus[i]!;
          const r = (await ours.callTool({ name: 'store', arguments: { content: m.content, topic: m.topic, tags: m.tags, project_id: 'bench' } })) as CallToolResult;
          if (r.isError) throw new Error(JSON.stringify(r.content));
        },
        async (q) => {
          // `search`, the retrieval call; `query` answers a broad unfiltered question with needsInput.
          const r = (await ours.callTool({ name: 'search', arguments: { query_text: q, limit: 5 } })) as CallToolResult;
          return ((r.structuredContent as { hits?: unknown[] } | undefined)?.hits?.length ?? 0) > 0;
        },
        opts.sizes,
        opts.window,
        queries,
        opts.rounds,
      );
    } finally {
      await ours.close();
    }
    return {
      peer: { package: '@modelcontextprotocol/server-memory', version: entry.version, transport: 'stdio' },
      ours: { transport: 'stdio' },
      sizes: opts.sizes,
      window: opts.window,
      peer_side: peerSide,
      our_side: ourSide,
      ratios: {
        write_p50: opts.sizes.map((size, i) => ({ size, ratio: ratio(ourSide.writes[i]?.latency.p50_ms, peerSide.writes[i]?.latency.p50_ms) })),
        write_p95: opts.sizes.map((size, i) => ({ size, ratio: ratio(ourSide.writes[i]?.latency.p95_ms, peerSide.writes[i]?.latency.p95_ms) })),
        search_p50: ratio(ourSide.search.p50_ms.median, peerSide.search.p50_ms.median),
        search_p95: ratio(ourSide.search.p95_ms.median, peerSide.search.p95_ms.median),
      },
    };
  } finally {
    await dir.remove();
  }
}
