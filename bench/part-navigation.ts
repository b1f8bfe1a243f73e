/**
 * Part `navigation` (seed 001 §3.3, NFR-001): the automatic edges on real conversations and the
 * navigation tools' latency at scale.
 *
 * 1. LoCoMo dev (kept outside the repository): every turn stored (one project per conversation,
 *    source = conversation/session, so Temporal edges follow the turns), then the link job over
 *    each project; reported: edges by type and by method, and sample answers of get_neighborhood,
 *    find_causal_path and entailment_query through a real MCP client. Aggregates only (CC BY-NC).
 * 2. For each size: the synthetic corpus bulk-loaded, a typed graph laid over it (Temporal chains
 *    per session of 50, 3 Semantic neighbours, Causal links with p = 0.3, a 2,000-memory topic
 *    hierarchy), then each navigation tool timed through the MCP client.
 */
import { existsSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../src/app.js';
import { createMcpServer } from '../src/mcp/server.js';
import { hyperbolicFitJob, linkJob } from '../src/services/navigation/navigation.js';
import { edgeCountsByTypeAndMethod } from '../src/store/edges-repo.js';
import { tempDir } from '../test/helpers/cli.js';
import { openBenchApp } from './app.js';
import { makeCorpus, mulberry32 } from './corpus.js';
import { log, progress } from './env.js';
import { bulkLoad } from './load.js';
import { readLocomo } from './locomo/data.js';
import { summarize, type LatencySummary } from './stats.js';
import { layGraph } from './navigation-graph.js';

const WARMUP = 20;
const BENCH_ENV = { CONTEXT_GRAPH_TOOLSETS: 'all' };

export interface NavigationResult {
  locomo: LocomoEdges | { skipped: string };
  latency: Record<string, Record<string, LatencySummary>>;
  graph_at_size: Record<string, Record<string, number>>;
}

interface LocomoEdges {
  conversations: number;
  memories: number;
  link_seconds: number;
  edges_by_type: Record<string, number>;
  edges_by_type_and_method: Array<{ edge_type: string; method: string; n: number }>;
  samples: Record<string, unknown>;
}

async function connect(app: App): Promise<Client> {
  const client = new Client({ name: 'bench-navigation', version: '1.0.0' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([createMcpServer(app, { actor: 'bench-navigation' }).connect(a), client.connect(b)]);
  return client;
}

interface NeighborhoodAnswer {
  neighbors: unknown[];
}
interface PathAnswer {
  found: boolean;
  hops: Array<{ method: string }>;
  cycle_detected: boolean;
}

async function callOk<T = unknown>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content).slice(0, 400)}`);
  return r.structuredContent as T;
}

const mean = (xs: number[]) => (xs.length ? Math.round((xs.reduce((s, x) => s + x, 0) / xs.length) * 100) / 100 : 0);

export async function runNavigation(opts: { locomoPath: string; locomoLimit: number | null; sizes: number[]; queries: number; seed: number }): Promise<NavigationResult> {
  const locomo = existsSync(opts.locomoPath) ? await locomoEdges(opts) : { skipped: `no LoCoMo file at ${opts.locomoPath}` };
  const latency: NavigationResult['latency'] = {};
  const graphAtSize: NavigationResult['graph_at_size'] = {};
  for (const size of opts.sizes) {
    const r = await latencyAt(size, opts.queries, opts.seed);
    latency[String(size)] = r.latency;
    graphAtSize[String(size)] = r.edges;
  }
  return { locomo, latency, graph_at_size: graphAtSize };
}

async function locomoEdges(opts: { locomoPath: string; locomoLimit: number | null; seed: number }): Promise<LocomoEdges> {
  const { samples: all } = await readLocomo(opts.locomoPath);
  const samples = opts.locomoLimit === null ? all : all.slice(0, opts.locomoLimit);
  const dir = await tempDir('cg-bench-nav-');
  const app = await openBenchApp(dir.path, null, BENCH_ENV);
  try {
    const total = samples.reduce((s, x) => s + x.turns.length, 0);
    const tick = progress('navigation: stored', total);
    const ids: string[] = [];
    for (const sample of samples) {
      for (const t of sample.turns) {
        const session = t.diaId.split(':')[0];
        const r = await app.services.memory.store({
          content: t.content,
          project_id: `locomo-${sample.sampleId}`,
          memory_type: 'semantic',
          source_uri: `locomo:${sample.sampleId}/${session}`,
          valid_from: t.validFrom,
        });
        ids.push(r.node.id);
        tick(ids.length);
      }
    }
    const t0 = Date.now();
    for (const sample of samples) {
      const r = await app.jobs.run(linkJob, { project_id: `locomo-${sample.sampleId}` }, { waitMs: Infinity });
      log(`navigation: linked locomo-${sample.sampleId}: ${JSON.stringify(r)}`);
    }
    const linkSeconds = (Date.now() - t0) / 1000;
    const rows = await edgeCountsByTypeAndMethod(app.db, null);
    const byType: Record<string, number> = {};
    for (const r of rows) byType[r.edge_type] = (byType[r.edge_type] ?? 0) + r.n;
    const fits = [];
    for (const sample of samples) fits.push(await app.jobs.run(hyperbolicFitJob, { project_id: `locomo-${sample.sampleId}`, space: 'E1' }, { waitMs: Infinity }));

    // Sample answers through MCP: neighbourhoods of random turns, causal chains along real Causal edges.
    const client = await connect(app);
    const rand = mulberry32(opts.seed);
    const pickIds = Array.from({ length: 100 }, () => ids[Math.floor(rand() * ids.length)]!);
    const n1: number[] = [];
    const n2: number[] = [];
    const bytes: number[] = [];
    for (const id of pickIds) {
      const one = await callOk<NeighborhoodAnswer>(client, 'get_neighborhood', { node_id: id });
      n1.push(one.neighbors.length);
      bytes.push(JSON.stringify(one).length);
      n2.push((await callOk<NeighborhoodAnswer>(client, 'get_neighborhood', { node_id: id, depth: 2 })).neighbors.length);
    }
    const causal = await app.db.query<{ src: string; dst: string }>(`select src, dst from edges where edge_type = 'Causal' and deleted_at is null order by id`);
    const next = new Map<string, string[]>();
    for (const e of causal) next.set(e.src, [...(next.get(e.src) ?? []), e.dst]);
    const hops: number[] = [];
    let chains = 0;
    let found = 0;
    let cycles = 0;
    let example: string | null = null;
    for (const e of causal.slice(0, 400)) {
      // A target two or more Causal hops downstream, when there is one.
      let target = e.dst;
      for (let k = 0; k < 3 && next.get(target)?.length; k++) target = next.get(target)![0]!;
      if (target === e.dst) continue;
      chains++;
      const p = await callOk<PathAnswer>(client, 'find_causal_path', { source_id: e.src, target_id: target, max_hops: 10 });
      if (p.found) {
        found++;
        hops.push(p.hops.length);
        if (!example || p.hops.length > 2) example = `${p.hops.length} hops, methods ${p.hops.map((h) => h.method).join(' → ')}`;
      }
      if (p.cycle_detected) cycles++;
    }
    await client.close();
    return {
      conversations: samples.length,
      memories: ids.length,
      link_seconds: Math.round(linkSeconds * 10) / 10,
      edges_by_type: byType,
      edges_by_type_and_method: rows,
      samples: {
        get_neighborhood: {
          calls: pickIds.length,
          mean_neighbors_depth1: mean(n1),
          mean_neighbors_depth2: mean(n2),
          zero_neighbor_share: mean(n1.map((x) => (x === 0 ? 1 : 0))),
          mean_json_bytes_depth1: mean(bytes),
        },
        find_causal_path: { chains_tried: chains, found, mean_hops: mean(hops), max_hops: hops.length ? Math.max(...hops) : 0, cycles_seen: cycles, example },
        hyperbolic_fit: fits,
      },
    };
  } finally {
    await app.close();
    await dir.remove();
  }
}

async function latencyAt(size: number, queries: number, seed: number): Promise<{ latency: Record<string, LatencySummary>; edges: Record<string, number> }> {
  const dir = await tempDir('cg-bench-nav-scale-');
  const app = await openBenchApp(dir.path, null, BENCH_ENV);
  try {
    const tick = progress(`navigation: loaded (${size})`, size);
    const loaded = await bulkLoad(
      app,
      makeCorpus(size, seed).map((m) => ({ ...m, tags: [] })),
      { projectId: 'nav', onProgress: tick },
    );
    const edges = await layGraph(app, loaded.ids, seed);
    await app.db.query('analyze');
    const fit = await app.jobs.run(hyperbolicFitJob, { project_id: 'nav', space: 'E1' }, { waitMs: Infinity });
    log(`navigation: ${size}: graph ${JSON.stringify(edges)}, fit ${JSON.stringify(fit)}`);
    const client = await connect(app);
    const rand = mulberry32(seed ^ size);
    const any = () => loaded.ids[Math.floor(rand() * loaded.ids.length)]!;
    const inHierarchy = () => loaded.ids[Math.floor(rand() * Math.min(2_000, loaded.ids.length))]!;
    const tools: Record<string, () => Record<string, unknown>> = {
      'get_neighborhood depth 1': () => ({ node_id: any() }),
      'get_neighborhood depth 2': () => ({ node_id: any(), depth: 2 }),
      'find_causal_path max_hops 5': () => ({ source_id: any(), target_id: any(), max_hops: 5 }),
      get_recent_context: () => ({ limit: 20 }),
      'get_recent_context session_only': () => ({ limit: 20, session_only: true }),
      entailment_query: () => ({ node_id: inHierarchy() }),
    };
    const latency: Record<string, LatencySummary> = {};
    for (const [label, args] of Object.entries(tools)) {
      const name = label.split(' ')[0]!;
      const samples: number[] = [];
      for (let i = 0; i < WARMUP + queries; i++) {
        const t0 = process.hrtime.bigint();
        await callOk(client, name, args());
        if (i >= WARMUP) samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      latency[label] = summarize(samples);
      log(`navigation: ${size}: ${label} p95 ${latency[label].p95_ms} ms`);
    }
    await client.close();
    return { latency, edges };
  } finally {
    await app.close();
    await dir.remove();
  }
}
