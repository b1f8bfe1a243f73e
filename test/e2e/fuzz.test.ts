import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { TOOL_ERROR_CODES } from '../../src/errors.js';
import { mulberry32 } from '../helpers/prng.js';
import { call, childEnv, httpClient, startServe, tempDir, toolError } from '../helpers/cli.js';

/**
 * Seeded generative test (zod's compile-generative style): random and malformed arguments for
 * every tool. No crash, no hang, only registry errors, never an internal one, and a rejected call
 * never changes the store. A failure names the seed and the call to replay it.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const CALLS = Number(process.env.FUZZ_CALLS ?? 1000);

test(`fuzz: ${CALLS} random and malformed calls across all tools (seed ${SEED})`, { timeout: 300_000 }, async () => {
  const dir = await tempDir();
  const server = await startServe(childEnv({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_EMBED_WAIT_MS: '200' }));
  const client = await httpClient(server.mcpUrl, 'fuzzer');
  const lastTx = async () => ((await (await fetch(`${server.baseUrl}/healthz`)).json()) as { store: { last_tx_id: number } }).store.last_tx_id;
  try {
    const { tools } = await client.listTools();
    const rand = mulberry32(SEED);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    // A few real ids so that some calls reach deeper than validation.
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(((await call(client, 'store', { content: `Fuzz seed memory ${i} about river ferries.`, tags: ['fuzz'] })).structuredContent as { id: string }).id);

    const scalars: unknown[] = [
      '',
      ' ',
      'x',
      'deploy',
      'a'.repeat(70_000),
      '\u0000',
      'héllo wörld 🚀',
      "'; drop table nodes; --",
      '%',
      '\\',
      '{"a":1}',
      0,
      -1,
      1,
      2,
      50,
      51,
      0.5,
      1.5,
      -0.5,
      1e308,
      -1e308,
      2 ** 53 + 1,
      true,
      false,
      null,
      [],
      ['a'],
      [1, 2],
      [null],
      {},
      { start: 'yesterday' },
      { nested: { deep: [1, { x: 'y' }] } },
      '2026-11-01T00:00:00Z',
      'not-a-date',
      ...ids,
      ids[0]!.toLowerCase(),
      '01ARZ3NDEKTSV4RRFFQ69G5FAV',
    ];
    const value = (depth = 0): unknown => {
      const r = rand();
      if (depth < 2 && r < 0.08) return Array.from({ length: Math.floor(rand() * 4) }, () => value(depth + 1));
      if (depth < 2 && r < 0.14)
        return Object.fromEntries(Array.from({ length: Math.floor(rand() * 3) }, () => [pick(['start', 'end', 'x', 'subject', 'object', 'predicate']), value(depth + 1)]));
      return pick(scalars);
    };
    const argsFor = (tool: Tool): unknown => {
      const r = rand();
      if (r < 0.04) return pick([null, 'string', 42, [], [{}]]);
      const props = Object.keys((tool.inputSchema.properties ?? {}) as Record<string, unknown>);
      const args: Record<string, unknown> = {};
      for (const key of props) if (rand() < 0.5) args[key] = value();
      if (rand() < 0.3) args[pick(['colour', 'type', 'k', 'project', 'query_text', '__proto__', 'constructor', ''])] = value();
      return args;
    };

    const codes = new Set<string>(TOOL_ERROR_CODES);
    let rejected = 0;
    for (let i = 0; i < CALLS; i++) {
      const tool = rand() < 0.03 ? ({ name: pick(['', 'nope', 'STORE', 'store ']), inputSchema: { type: 'object' } } as Tool) : pick(tools);
      const args = argsFor(tool);
      const label = `call ${i} (seed ${SEED}): ${tool.name} ${JSON.stringify(args)?.slice(0, 300)}`;
      const before = await lastTx();
      const result = await Promise.race([
        client.callTool({ name: tool.name, arguments: args as Record<string, unknown> }).then(
          (r) => ({ ok: true as const, r }),
          (e: unknown) => ({ ok: false as const, e }),
        ),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`hang: ${label}`)), 20_000)),
      ]);
      if (!result.ok) {
        // Only a JSON-RPC level rejection of non-object arguments by the SDK itself is acceptable.
        assert.match(String((result.e as Error).message), /-32602|Invalid/, label);
        assert.equal(await lastTx(), before, `rejected call changed the store: ${label}`);
        rejected++;
        continue;
      }
      const r = result.r as Parameters<typeof toolError>[0];
      if (r.isError) {
        const err = toolError(r);
        assert.ok(err && codes.has(err.code), `not a registry error: ${label}`);
        assert.notEqual(err.code, 'INTERNAL', `internal error: ${label}\n${err.message}`);
        assert.ok(!/\bat \S+ \(|node_modules|\/work\/|select |insert /i.test(JSON.stringify(r.content)), `internals leaked: ${label}`);
        assert.equal(await lastTx(), before, `rejected call changed the store: ${label}`);
        rejected++;
      }
    }
    assert.ok(rejected > CALLS / 4, `most random calls should be rejected (got ${rejected})`);
    // Still healthy and still answering.
    const ok = await call(client, 'query', { query: 'river ferries', tags: ['fuzz'] });
    assert.equal(ok.isError, undefined);
  } finally {
    await client.close();
    await server.stop();
    await dir.remove();
  }
});
