/**
 * Part `locomo`: retrieval on real long conversations (a LoCoMo-format file kept outside the
 * repository). Every conversation goes into its own project of one fresh embedded app, one
 * memory per turn through the live `store` path, dated by its session; every QA item is then a
 * query in that project, answered by each system in the same run: our `search` tool through a
 * real MCP client, SearchService.hybrid directly, plain BM25 per conversation, and each signal
 * alone. Only aggregate figures leave this file (the data is CC BY-NC).
 */
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { App } from '../src/app.js';
import { createMcpServer } from '../src/mcp/server.js';
import { tempDir } from '../test/helpers/cli.js';
import { openBenchApp } from './app.js';
import { log, progress } from './env.js';
import { readLocomo, type LocomoSample } from './locomo/data.js';
import { scoreByCategory, type LocomoRun, type ScoredSystem } from './locomo/score.js';
import { buildBm25 } from './quality/bm25.js';
import { denseOnly, lexicalOnly, weightVariants } from './signals.js';
import { LEXICAL_SPACE, signalWeights, spaceById } from '../src/embed/spaces/registry.js';
import { summarize, type LatencySummary } from './stats.js';
import { enqueueJob } from '../src/jobs/define.js';
import { graphEmbedJob } from '../src/services/graph-embedding.js';
import { linkJob } from '../src/services/navigation/link-job.js';

/** The deepest cut-off scored; every system returns this many results. */
const DEPTH = 50;
/** Untimed queries before each timed system, so JIT warm-up does not land in its p95. */
const WARMUP_QUERIES = 20;
const EMBED_WAIT_MS = 600_000;
/** The `search` tool's default score_threshold. */
const DEFAULT_THRESHOLD = 0.25;
/** Weights (E1 = 1) at which each unweighted space is tried in fusion; CG_BENCH_PROBE_WEIGHTS="0.1,0.3". */
const FUSION_PROBE_WEIGHTS = (process.env.CG_BENCH_PROBE_WEIGHTS ?? '0.3').split(',').map(Number);
/** Only these spaces are probed (CG_BENCH_PROBES="E7,E9"); default every unweighted one. */
const PROBE_ONLY = process.env.CG_BENCH_PROBES ? new Set(process.env.CG_BENCH_PROBES.split(',')) : null;

export interface LocomoResult {
  file: string;
  conversations: number;
  turns: number;
  questions: { total: number; scored: number; skipped_no_evidence: number; by_category: Record<string, number> };
  evidence_repairs: { split: number; rewritten: number; dropped: number };
  ingest: { path: 'MemoryService.store'; memories: number; seconds: number; per_s: number; store_latency: LatencySummary };
  /** Automatic edges made after ingest for E8 (null when CG_BENCH_LOCOMO_EDGES=off). */
  edges: { created: Record<string, number>; link_seconds: number; graph_embed_seconds: number; graph_embed_cpu_ms_per_memory: number } | null;
  e1_provider: string;
  spaces: string[];
  bm25_stemmed: boolean;
  systems: Record<string, ScoredSystem>;
  latency: { mcp_search: LatencySummary; hybrid_service: LatencySummary };
  /** Questions whose top 50 through MCP equals SearchService.hybrid's (the tool adds no ranking). */
  mcp_equals_hybrid_rate: number;
}

export type LocomoOutcome = LocomoResult | { skipped: string };

/** Where the ids of one conversation's memories lead back to its dia_ids. */
interface Loaded {
  sample: LocomoSample;
  projectId: string;
  diaOfNid: Map<number, string>;
  diaOfId: Map<string, string>;
}

export async function runLocomo(opts: { path: string; explicit: boolean; limit: number | null; modelDir?: string | null }): Promise<LocomoOutcome> {
  if (!existsSync(opts.path)) {
    // The data is not in the repository; a machine without it skips the part instead of failing.
    if (!opts.explicit) {
      const skipped = `no LoCoMo file at ${opts.path}; pass --locomo <path to a LoCoMo-format JSON file>`;
      log(`locomo: skipped: ${skipped}`);
      return { skipped };
    }
    throw new Error(`--locomo ${opts.path}: file not found`);
  }
  const { samples: all, repairs } = await readLocomo(opts.path);
  const samples = opts.limit === null ? all : all.slice(0, opts.limit);
  const turns = samples.reduce((s, x) => s + x.turns.length, 0);
  log(`locomo: ${samples.length} conversations, ${turns} turns, ${samples.reduce((s, x) => s + x.questions.length, 0)} questions from ${basename(opts.path)}`);

  const dir = await tempDir('cg-bench-locomo-');
  const app = await openBenchApp(dir.path, opts.modelDir);
  const client = new Client({ name: 'bench-locomo', version: '1.0.0' });
  const server = createMcpServer(app, { actor: 'bench-locomo' });
  try {
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    const { loaded, ingest, edges } = await ingestAll(app, samples);
    const spaces = app.embedder.encoders().map((e) => e.space);
    // Every space but the lexical one alone (the lexical one is lexical_only); dense by k-NN,
    // sparse ones (E7, E11) by BM25 over their own terms.
    // CG_BENCH_SINGLES=E6,E12 narrows them (a rerun that only compares fusion weights).
    const singlesOnly = process.env.CG_BENCH_SINGLES ? new Set(process.env.CG_BENCH_SINGLES.split(',')) : null;
    const singleSpaces = spaces.filter((s) => s !== LEXICAL_SPACE && (!singlesOnly || singlesOnly.has(s)));
    // Each other space added to the default fusion at FUSION_PROBE_WEIGHT, and all of them together:
    // what a space earns in fusion, measured side by side with the default.
    const defaults = signalWeights();
    const probes = spaces
      .map(spaceById)
      .filter((s) => (defaults[s.signal] ?? 0) === 0)
      .filter((s) => !PROBE_ONLY || PROBE_ONLY.has(s.id));
    const fusedWith = (extra: Record<string, number>) => async (l: Loaded, q: string) =>
      (await app.services.search.hybrid({ text: q, limit: DEPTH, projectId: l.projectId, weights: { ...defaults, ...extra } })).hits.map(
        (h) => l.diaOfNid.get(h.node.nid) ?? `nid:${h.node.nid}`,
      );

    const bm25 = new Map(samples.map((s) => [s.sampleId, buildBm25(s.turns.map((t) => ({ key: t.diaId, topic: '', content: t.content })))]));
    // Single signals search the whole store: fetch every memory's rank, then keep this project's.
    const inProject = (l: Loaded, nids: number[]) => nids.flatMap((n) => (l.diaOfNid.has(n) ? [l.diaOfNid.get(n)!] : [])).slice(0, DEPTH);
    type System = { name: string; timed?: 'mcp_search' | 'hybrid_service'; run: (l: Loaded, q: string) => Promise<string[]> };
    const systems: System[] = [
      { name: 'search_mcp', timed: 'mcp_search', run: (l, q) => mcpSearch(client, l, q) },
      {
        name: 'hybrid_service',
        timed: 'hybrid_service',
        run: async (l, q) =>
          (await app.services.search.hybrid({ text: q, limit: DEPTH, projectId: l.projectId })).hits.map((h) => l.diaOfNid.get(h.node.nid) ?? `nid:${h.node.nid}`),
      },
      {
        // What an agent gets with the tool's default threshold: calibrated scores drop the weak tail.
        name: 'hybrid_threshold_0.25',
        run: async (l, q) =>
          (await app.services.search.hybrid({ text: q, limit: DEPTH, projectId: l.projectId, scoreThreshold: DEFAULT_THRESHOLD })).hits.map(
            (h) => l.diaOfNid.get(h.node.nid) ?? `nid:${h.node.nid}`,
          ),
      },
      { name: 'bm25_wink', run: async (l, q) => bm25.get(l.sample.sampleId)!.search(q, DEPTH) },
      ...(spaces.includes('E13') ? [{ name: 'lexical_only', run: async (l: Loaded, q: string) => inProject(l, await lexicalOnly(app, q, turns)) }] : []),
      ...singleSpaces.map((space) => ({ name: `${space}_only`, run: async (l: Loaded, q: string) => inProject(l, await denseOnly(app, space, q, turns)) })),
      ...FUSION_PROBE_WEIGHTS.flatMap((w) => [
        ...probes.map((s) => ({ name: `fused+${s.id}@${w}`, run: fusedWith({ [s.signal]: w }) })),
        ...(probes.length > 1 ? [{ name: `fused+all@${w}`, run: fusedWith(Object.fromEntries(probes.map((s) => [s.signal, w]))) }] : []),
      ]),
      // The default fusion with some weights changed (CG_BENCH_VARIANTS), e.g. a weighted space back at 0.
      ...weightVariants().map((v) => ({ name: v.name, run: fusedWith(v.weights) })),
    ];

    const ranked: Record<string, string[][]> = Object.fromEntries(systems.map((x) => [x.name, []]));
    const runs: Record<string, LocomoRun[]> = Object.fromEntries(systems.map((x) => [x.name, []]));
    const latencies: Record<'mcp_search' | 'hybrid_service', number[]> = { mcp_search: [], hybrid_service: [] };
    const ask = async (sys: System, l: Loaded, q: LocomoSample['questions'][number]) => {
      const t0 = process.hrtime.bigint();
      const list = await sys.run(l, q.text);
      if (sys.timed) latencies[sys.timed].push(Number(process.hrtime.bigint() - t0) / 1e6);
      ranked[sys.name]!.push(list);
      runs[sys.name]!.push({ category: q.category, ranked: list, evidence: q.evidence });
    };
    const timed = systems.filter((x) => x.timed);
    for (const sys of timed) for (const q of loaded[0]!.sample.questions.slice(0, WARMUP_QUERIES)) await sys.run(loaded[0]!, q.text);
    // The timed systems take turns on each question, in alternating order, so that load from
    // other processes and anything one call leaves warm for the next fall on both alike.
    let i = 0;
    for (const l of loaded) for (const q of l.sample.questions) for (const sys of i++ % 2 ? [...timed].reverse() : timed) await ask(sys, l, q);
    for (const sys of systems.filter((x) => !x.timed)) for (const l of loaded) for (const q of l.sample.questions) await ask(sys, l, q);
    for (const sys of systems) {
      const o = scoreByCategory(runs[sys.name]!).overall;
      log(`locomo: ${sys.name} R@5/10/25/50 ${o.recall_at_5}/${o.recall_at_10}/${o.recall_at_25}/${o.recall_at_50}`);
    }

    const questions = loaded.flatMap((l) => l.sample.questions);
    const byCategory: Record<string, number> = {};
    for (const q of questions) byCategory[q.category] = (byCategory[q.category] ?? 0) + 1;
    const scored = questions.filter((q) => q.evidence.length > 0).length;
    const same = ranked.search_mcp!.filter((list, i) => list.join('\n') === ranked.hybrid_service![i]!.join('\n')).length;
    return {
      file: basename(opts.path),
      conversations: samples.length,
      turns,
      questions: { total: questions.length, scored, skipped_no_evidence: questions.length - scored, by_category: byCategory },
      evidence_repairs: repairs,
      ingest,
      edges,
      e1_provider: app.embedder.encoders().find((e) => e.space === 'E1')?.provider ?? 'none',
      spaces,
      bm25_stemmed: [...bm25.values()][0]?.stemmed ?? false,
      systems: Object.fromEntries(Object.entries(runs).map(([name, r]) => [name, scoreByCategory(r)])),
      latency: { mcp_search: summarize(latencies.mcp_search), hybrid_service: summarize(latencies.hybrid_service) },
      mcp_equals_hybrid_rate: questions.length ? Math.round((same / questions.length) * 1e4) / 1e4 : 0,
    };
  } finally {
    await client.close().catch(() => {});
    await server.close().catch(() => {});
    await app.close();
    await dir.remove();
  }
}

/** The `search` tool as an agent calls it, with only the project, depth and threshold set. */
async function mcpSearch(client: Client, l: Loaded, query: string): Promise<string[]> {
  const res = await client.callTool({ name: 'search', arguments: { query_text: query, project_id: l.projectId, limit: DEPTH, score_threshold: 0 } });
  if (res.isError) throw new Error(`search failed: ${JSON.stringify(res.content).slice(0, 500)}`);
  const hits = (res.structuredContent as { hits?: Array<{ id: string }> } | undefined)?.hits;
  if (!hits) throw new Error('search returned no structuredContent.hits');
  return hits.map((h) => l.diaOfId.get(h.id) ?? `id:${h.id}`);
}

/**
 * One MemoryService.store per turn (the live write path, each call waiting for its vectors as
 * embedded mode does), then a wait until every space's index holds every turn, so no query runs
 * against a half-embedded store. The rate covers both.
 */
async function ingestAll(app: App, samples: readonly LocomoSample[]): Promise<{ loaded: Loaded[]; ingest: LocomoResult['ingest']; edges: LocomoResult['edges'] }> {
  const total = samples.reduce((s, x) => s + x.turns.length, 0);
  const tick = progress('locomo: stored', total);
  const storeMs: number[] = [];
  const start = process.hrtime.bigint();
  const loaded: Loaded[] = [];
  let done = 0;
  for (const sample of samples) {
    const l: Loaded = { sample, projectId: `locomo-${sample.sampleId}`, diaOfNid: new Map(), diaOfId: new Map() };
    for (const t of sample.turns) {
      const t0 = process.hrtime.bigint();
      // memory_type is what the `store` tool defaults to: the bench sets only what a turn carries.
      const r = await app.services.memory.store({
        content: t.content,
        project_id: l.projectId,
        memory_type: 'semantic',
        source_uri: `locomo:${sample.sampleId}/${t.diaId}`,
        valid_from: t.validFrom,
      });
      storeMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
      l.diaOfNid.set(r.node.nid, t.diaId);
      l.diaOfId.set(r.node.id, t.diaId);
      tick(++done);
    }
    loaded.push(l);
  }
  await waitForIndexes(app, total);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const edges = await buildEdges(app, loaded);
  log(`locomo: ingested ${total} turns in ${seconds.toFixed(1)} s (${(total / seconds).toFixed(0)}/s)`);
  return {
    loaded,
    ingest: {
      path: 'MemoryService.store',
      memories: total,
      seconds: Math.round(seconds * 100) / 100,
      per_s: Math.round((total / seconds) * 100) / 100,
      store_latency: summarize(storeMs),
    },
    edges,
  };
}

/**
 * E8 places a memory by its edges: after the timed ingest, the link job's Semantic, Temporal and
 * Causal edges (no Hierarchical: it adds entity nodes, which would change every other row) for
 * each conversation, then the graph-embed job over all its turns (the link job also enqueues
 * it; running it here is the wait). CG_BENCH_LOCOMO_EDGES=off skips this (E8 is then E1).
 */
async function buildEdges(app: App, loaded: readonly Loaded[]): Promise<LocomoResult['edges']> {
  if (process.env.CG_BENCH_LOCOMO_EDGES === 'off') return null;
  const created: Record<string, number> = {};
  let linkNs = 0n;
  let graphNs = 0n;
  let cpuUs = 0;
  for (const l of loaded) {
    let t0 = process.hrtime.bigint();
    const job = await enqueueJob(app.queue, linkJob, { project_id: l.projectId, kinds: ['Semantic', 'Temporal', 'Causal'] });
    const r = await job.finished(EMBED_WAIT_MS);
    for (const [k, n] of Object.entries(r.created)) created[k] = (created[k] ?? 0) + n;
    linkNs += process.hrtime.bigint() - t0;
    t0 = process.hrtime.bigint();
    const cpu0 = process.cpuUsage();
    const ctx = { jobId: 'bench', attempt: 1, signal: new AbortController().signal, deps: { db: app.db, embedder: app.embedder }, report: async () => {} };
    await graphEmbedJob.handler({ nids: [...l.diaOfNid.keys()] }, ctx);
    const cpu = process.cpuUsage(cpu0);
    cpuUs += cpu.user + cpu.system;
    graphNs += process.hrtime.bigint() - t0;
  }
  await app.indexSync?.pull();
  const s = (ns: bigint) => Math.round(Number(ns) / 1e7) / 100;
  const turns = loaded.reduce((n, l) => n + l.diaOfNid.size, 0);
  // CPU of this process (the job runs here, PGlite included), per memory: what E8 costs a write.
  const graphCpuMsPerMemory = Math.round((cpuUs / 1000 / Math.max(1, turns)) * 1000) / 1000;
  log(`locomo: edges ${JSON.stringify(created)} in ${s(linkNs)} s; E8 vectors in ${s(graphNs)} s (${graphCpuMsPerMemory} ms CPU per memory)`);
  return { created, link_seconds: s(linkNs), graph_embed_seconds: s(graphNs), graph_embed_cpu_ms_per_memory: graphCpuMsPerMemory };
}

/** Resolves once every encoder's index holds `count` vectors (the app is fresh, so they are ours). */
async function waitForIndexes(app: App, count: number): Promise<void> {
  const spaces = app.embedder.encoders().map((e) => e.space);
  const deadline = Date.now() + EMBED_WAIT_MS;
  for (;;) {
    await app.indexSync?.pull();
    const sizes = await app.indexes.sizes();
    const behind = spaces.filter((s) => (sizes[s] ?? 0) < count);
    if (behind.length === 0) return;
    if (Date.now() > deadline) throw new Error(`embeddings not done after ${EMBED_WAIT_MS / 1000} s: ${behind.map((s) => `${s} ${sizes[s] ?? 0}/${count}`).join(', ')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
