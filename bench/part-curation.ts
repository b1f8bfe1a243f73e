/**
 * Part `curation`: latency of the curation, lineage, citation and tombstone tools (seed 001
 * NFR-001: curation p95 < 100 ms) through a real MCP client, at each store size. The client is
 * the SDK's over its in-memory transport to the app's own MCP server, so the figure is the tool
 * path (validation, service, transaction, log, reversal hash, re-embedding where the tool waits
 * for it) without HTTP framing. Every write works on fresh nodes of the bulk-loaded corpus.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../src/app.js';
import { citation } from '../src/ids.js';
import { createMcpServer } from '../src/mcp/server.js';
import { tempDir } from '../test/helpers/cli.js';
import { openBenchApp } from './app.js';
import { makeCorpus } from './corpus.js';
import { log } from './env.js';
import { bulkLoad } from './load.js';
import { summarize, type LatencySummary } from './stats.js';

export const CURATION_TOOLS = [
  'annotate_node',
  'boost_importance',
  'forget_concept',
  'restore_from_hash',
  'merge_concepts',
  'get_node_lineage',
  'hydrate_citation',
  'search_tombstones',
] as const;

export interface CurationStep {
  size: number;
  load_s: number;
  tools: Record<string, LatencySummary>;
}

export interface CurationResult {
  mode: string;
  samples_per_tool: number;
  steps: CurationStep[];
  /** The slowest curation-tool p95 at each size, against seed 001's 100 ms. */
  worst_p95_ms: Record<string, { tool: string; p95_ms: number; met: boolean }>;
}

async function connect(app: App): Promise<Client> {
  const mcp = createMcpServer(app, { actor: 'bench-curation' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcp.connect(serverSide);
  const client = new Client({ name: 'bench-curation', version: '1' });
  await client.connect(clientSide);
  await client.callTool({ name: 'toolsets', arguments: { enable: ['curation', 'metacognitive', 'diagnostic'] } });
  return client;
}

async function timedCall(client: Client, name: string, args: Record<string, unknown>, into: number[]): Promise<Record<string, unknown>> {
  const t0 = process.hrtime.bigint();
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  into.push(Number(process.hrtime.bigint() - t0) / 1e6);
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content).slice(0, 300)}`);
  return r.structuredContent ?? {};
}

export async function runCuration(opts: { sizes: number[]; samples: number; seed: number }): Promise<CurationResult> {
  const sizes = [...new Set(opts.sizes)].sort((a, b) => a - b);
  const corpus = makeCorpus(sizes.at(-1)!, opts.seed);
  const dir = await tempDir('cg-bench-curation-');
  const result: CurationResult = {
    mode: 'embedded: PGlite, in-process queue, bundled GloVe E1; MCP SDK client over the in-memory transport',
    samples_per_tool: opts.samples,
    steps: [],
    worst_p95_ms: {},
  };
  const app = await openBenchApp(dir.path);
  try {
    let loaded: string[] = [];
    for (const size of sizes) {
      const need = size - loaded.length;
      const t0 = Date.now();
      let fresh: string[] = [];
      if (need > 0) {
        log(`curation: bulk-loading ${need} memories to reach ${size}`);
        fresh = (await bulkLoad(app, corpus.slice(loaded.length, size), { projectId: 'bench' })).ids;
        loaded = loaded.concat(fresh);
      }
      const step: CurationStep = { size, load_s: Math.round((Date.now() - t0) / 100) / 10, tools: {} };
      const client = await connect(app);
      const ms: Record<string, number[]> = Object.fromEntries(CURATION_TOOLS.map((t) => [t, []]));
      // Nodes loaded in this step only (earlier steps merged some away), spread over them.
      const stride = Math.max(1, Math.floor(fresh.length / (opts.samples * 6)));
      const pick = (i: number) => fresh[(i * stride) % fresh.length]!;
      const hashes: string[] = [];
      for (let i = 0; i < opts.samples; i++) {
        const base = i * 6;
        await timedCall(client, 'annotate_node', { node_id: pick(base), annotations: { tags: ['bench'], domain: 'Research', notes: `sample ${i}` } }, ms.annotate_node!);
        await timedCall(client, 'boost_importance', { node_id: pick(base + 1), delta: 0.1, rationale: 'benchmark boost of a sample' }, ms.boost_importance!);
        const f = await timedCall(client, 'forget_concept', { node_id: pick(base + 2), reason: 'obsolete', rationale: 'benchmark soft delete' }, ms.forget_concept!);
        hashes.push(f.reversal_hash as string);
        await timedCall(
          client,
          'merge_concepts',
          { source_node_ids: [pick(base + 3), pick(base + 4)], target_name: `bench merge ${i}`, force_merge: true, rationale: 'benchmark merge of two samples' },
          ms.merge_concepts!,
        );
        await timedCall(client, 'get_node_lineage', { node_id: pick(base) }, ms.get_node_lineage!);
        await timedCall(client, 'hydrate_citation', { citation_tag: citation(pick(base + 1)) }, ms.hydrate_citation!);
        await timedCall(client, 'search_tombstones', { query: 'the', limit: 20 }, ms.search_tombstones!);
      }
      for (const h of hashes) await timedCall(client, 'restore_from_hash', { reversal_hash: h }, ms.restore_from_hash!);
      await client.close();
      for (const t of CURATION_TOOLS) step.tools[t] = summarize(ms[t]!);
      const curation = ['annotate_node', 'boost_importance', 'forget_concept', 'restore_from_hash', 'merge_concepts'];
      const worst = curation.map((t) => ({ tool: t, p95_ms: step.tools[t]!.p95_ms })).sort((a, b) => b.p95_ms - a.p95_ms)[0]!;
      result.worst_p95_ms[String(size)] = { ...worst, met: worst.p95_ms < 100 };
      log(`curation ${size}: ${CURATION_TOOLS.map((t) => `${t} p95 ${step.tools[t]!.p95_ms} ms`).join(', ')}`);
      result.steps.push(step);
    }
    return result;
  } finally {
    await app.close();
    await dir.remove();
  }
}

/** The summary.md section. */
export function renderCuration(r: CurationResult): string[] {
  const L = ['## Curation tools (seed 001 NFR-001: curation p95 < 100 ms)', '', `${r.mode}; ${r.samples_per_tool} calls per tool and size.`, ''];
  L.push(`| tool | ${r.steps.map((s) => `p50 / p95 ms at ${s.size}`).join(' | ')} |`, `|---|${r.steps.map(() => '---|').join('')}`);
  for (const t of CURATION_TOOLS) L.push(`| ${t} | ${r.steps.map((s) => `${s.tools[t]!.p50_ms} / ${s.tools[t]!.p95_ms}`).join(' | ')} |`);
  L.push('');
  return L;
}
