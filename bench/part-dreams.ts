/**
 * Part `dreams` (issue 12): each dream phase's duration and throughput on one LoCoMo dev
 * conversation (kept outside the repository; skipped without it). The conversation's turns are
 * imported with Temporal edges between consecutive turns, its questions asked as an agent would
 * (search, then query), then NREM, REM and a consolidation run through a real MCP client.
 * Aggregates only (CC BY-NC).
 */
import { existsSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../src/app.js';
import { createMcpServer } from '../src/mcp/server.js';
import { tempDir } from '../test/helpers/cli.js';
import { openBenchApp } from './app.js';
import { log } from './env.js';
import { readLocomo } from './locomo/data.js';
import { batches, conversationStore } from './locomo/dream-store.js';

export type DreamsResult =
  | { skipped: string }
  | {
      conversation: string;
      memories: number;
      temporal_edges: number;
      retrievals: number;
      phases: Record<string, { wall_ms: number; phase_ms: number; counts: Record<string, number>; per_second: Record<string, number> }>;
      get_pruning_candidates_ms: number;
      get_amortized_shortcuts_ms: number;
    };

async function connect(app: App): Promise<Client> {
  const client = new Client({ name: 'bench-dreams', version: '1.0.0' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([createMcpServer(app, { actor: 'bench-dreams' }).connect(a), client.connect(b)]);
  return client;
}

async function callOk<T = unknown>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const r = (await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 })) as CallToolResult;
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content).slice(0, 400)}`);
  return r.structuredContent as T;
}

const rate = (n: number, ms: number) => (ms > 0 ? Math.round((n / ms) * 1000 * 10) / 10 : 0);

export async function runDreams(opts: { locomoPath: string; conversation: number }): Promise<DreamsResult> {
  if (!existsSync(opts.locomoPath)) return { skipped: `no LoCoMo file at ${opts.locomoPath}` };
  const sample = (await readLocomo(opts.locomoPath)).samples[opts.conversation];
  if (!sample) return { skipped: `no conversation ${opts.conversation} in ${opts.locomoPath}` };
  const dir = await tempDir('cg-bench-dreams-');
  const app = await openBenchApp(dir.path, null, { CONTEXT_GRAPH_TOOLSETS: 'all', CONTEXT_GRAPH_AUTO_EDGES: 'off' });
  const client = await connect(app);
  try {
    const conv = conversationStore(sample);
    for (const records of [...batches(conv.memories), ...batches(conv.edges)]) await callOk(client, 'import_records', { records, project_id: conv.projectId });
    for (const q of sample.questions) {
      await callOk(client, 'search', { query_text: q.text, project_id: conv.projectId, score_threshold: 0 });
      await callOk(client, 'query', { query: q.text, project_id: conv.projectId });
    }
    log(`dreams: ${conv.memories.length} turns, ${sample.questions.length * 2} retrievals`);
    const budget = { max_operations: 100_000, max_ms: 600_000 };
    const phases: Extract<DreamsResult, { phases: unknown }>['phases'] = {};
    // Throughput of each phase: the named counts per second of the phase's own time (planning and its transaction).
    const measure = async (name: string, tool: string, args: Record<string, unknown>, throughputOf: readonly string[]) => {
      const t0 = Date.now();
      const r = await callOk<{ phases: Array<{ ms: number; counts: Record<string, number> }> }>(client, tool, { ...args, project_id: conv.projectId, budget });
      const wall = Date.now() - t0;
      const p = r.phases[0];
      if (!p) throw new Error(`${tool} committed no phase: ${JSON.stringify(r)}`);
      const perSecond = Object.fromEntries(throughputOf.map((k) => [k, rate(p.counts[k] ?? 0, p.ms)]));
      phases[name] = { wall_ms: wall, phase_ms: p.ms, counts: p.counts, per_second: perSecond };
      log(`dreams: ${name} ${wall} ms ${JSON.stringify(p.counts)}`);
    };
    await measure('nrem', 'trigger_dream', { phase: 'nrem' }, ['replayed', 'retrievals_read']);
    await measure('rem', 'trigger_dream', { phase: 'rem' }, ['candidates', 'shortcuts_created']);
    await measure('consolidation', 'trigger_consolidation', {}, ['memories']);
    let t0 = Date.now();
    await callOk(client, 'get_pruning_candidates', { project_id: conv.projectId, limit: 20 });
    const pruningMs = Date.now() - t0;
    t0 = Date.now();
    await callOk(client, 'get_amortized_shortcuts', { project_id: conv.projectId, limit: 50 });
    const shortcutsMs = Date.now() - t0;
    return {
      conversation: sample.sampleId,
      memories: conv.memories.length,
      temporal_edges: conv.edges.length,
      retrievals: sample.questions.length * 2,
      phases,
      get_pruning_candidates_ms: pruningMs,
      get_amortized_shortcuts_ms: shortcutsMs,
    };
  } finally {
    await client.close();
    await app.close();
    await dir.remove();
  }
}
