/**
 * Gateway overhead (issue 14): the same read (`phase_get`) and write (`work_update`) called
 * through `POST /api/tool` and through MCP Streamable HTTP (`/mcp`, SDK client) against one
 * embedded `serve`, interleaved in one run so both sides see the same machine load.
 *
 *   npm run build && node --enable-source-maps dist/bench/gateway.js [--calls 300]
 *
 * Prints p50/p95 per side and the ratio REST / MCP (< 1: the gateway is cheaper).
 */
import { parseArgs } from 'node:util';
import { childEnv, httpClient, startServe, tempDir } from '../test/helpers/cli.js';
import { log } from './env.js';
import { ratio, summarize, timed } from './stats.js';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '300' } } });
const calls = Number(values.calls);

type Result = Record<string, unknown>;

async function rest(baseUrl: string, tool: string, args: Record<string, unknown>): Promise<Result> {
  const res = await fetch(`${baseUrl}/api/tool`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool, arguments: args }) });
  const body = (await res.json()) as { success: boolean; result?: Result; error?: string };
  if (!body.success || !body.result) throw new Error(`${tool}: ${body.error}`);
  return body.result;
}

async function main(): Promise<void> {
  const dir = await tempDir('cg-bench-gateway-');
  const server = await startServe(childEnv({ CONTEXT_GRAPH_DATA_DIR: dir.path, LOG_LEVEL: 'warn' }));
  const client = await httpClient(server.mcpUrl, 'bench-gateway');
  try {
    const phase = (await rest(server.baseUrl, 'phase-create', { what: 'Benchmark phase', success_criteria: { fast: true } })).phase_id as string;
    const work = (await rest(server.baseUrl, 'work-create', { what: 'Benchmark work' })).work_id as string;
    const sides = {
      rest_read: () => rest(server.baseUrl, 'phase-get', { phase_id: phase }),
      mcp_read: () => client.callTool({ name: 'phase_get', arguments: { phase_id: phase } }),
      rest_write: () => rest(server.baseUrl, 'work-update', { work_id: work, metrics: { n: Math.random() } }),
      mcp_write: () => client.callTool({ name: 'work_update', arguments: { work_id: work, metrics: { n: Math.random() } } }),
    };
    const samples: Record<keyof typeof sides, number[]> = { rest_read: [], mcp_read: [], rest_write: [], mcp_write: [] };
    // Warm-up: connection pools, JIT, first embedding of the work's text.
    for (const fn of Object.values(sides)) for (let i = 0; i < 10; i++) await fn();
    for (let i = 0; i < calls; i++) {
      // Alternate the order so neither side always runs right after the other's write.
      const order: Array<keyof typeof sides> = i % 2 ? ['mcp_read', 'rest_read', 'mcp_write', 'rest_write'] : ['rest_read', 'mcp_read', 'rest_write', 'mcp_write'];
      for (const side of order) samples[side].push(await timed(sides[side]));
      if (i % 50 === 0) log(`gateway bench: ${i}/${calls}`);
    }
    const summary = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)])) as Record<keyof typeof sides, ReturnType<typeof summarize>>;
    const result = {
      calls,
      ...summary,
      ratio_rest_over_mcp: {
        read_p50: ratio(summary.rest_read.p50_ms, summary.mcp_read.p50_ms),
        read_p95: ratio(summary.rest_read.p95_ms, summary.mcp_read.p95_ms),
        write_p50: ratio(summary.rest_write.p50_ms, summary.mcp_write.p50_ms),
        write_p95: ratio(summary.rest_write.p95_ms, summary.mcp_write.p95_ms),
      },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await client.close();
    await server.stop();
    await dir.remove();
  }
}

await main();
