import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SERVE_NODE_FLAGS } from '../../src/serve-flags.js';

/** The compiled CLI, exactly what the `context-graph` bin runs. */
export const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));

export async function tempDir(prefix = 'cg-test-'): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** Environment for a child: ours minus the service URLs, plus `extra`. */
/** The embed wait of servers and apps under test (see childEnv). */
export const SUITE_EMBED_WAIT_MS = 15_000;

export function childEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'DATABASE_URL' && k !== 'REDIS_URL') env[k] = v;
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  env.LOG_LEVEL ??= 'warn';
  // Suites exercise every tool; the toolset listing itself is tested with the default (empty).
  env.CONTEXT_GRAPH_TOOLSETS ??= 'all';
  // Automatic edges (background link jobs) would add triples and transactions to what suites about
  // other tools assert exactly; the suites about automatic edges turn them on.
  env.CONTEXT_GRAPH_AUTO_EDGES ??= 'off';
  // Suites search right after they store and expect the vectors in. A read waits for them up to
  // this bound (2 s by default); a fresh process's first embedding loads the encoders (~1 s on an
  // idle 2-core machine, over 2 s with three suites beside it), so the default made such a
  // search a race with the machine's load. Suites about the bound itself set their own.
  env.CONTEXT_GRAPH_EMBED_WAIT_MS ??= String(SUITE_EMBED_WAIT_MS);
  return env;
}

export interface RunningProcess {
  proc: ChildProcess;
  stderr(): string;
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

function track(proc: ChildProcess): RunningProcess {
  let err = '';
  proc.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return {
    proc,
    stderr: () => err,
    exited,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Node's flags for a CLI command: the server's own (`npm start`'s) for `serve` and `stdio`. */
function nodeFlags(command: string | undefined): string[] {
  return ['--enable-source-maps', ...(command === 'serve' || command === 'stdio' ? SERVE_NODE_FLAGS : [])];
}

export function runCli(args: string[], env: Record<string, string>): RunningProcess {
  return track(spawn(process.execPath, [...nodeFlags(args[0]), CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] }));
}

/** How long `serve` may take to listen: a cold start compiles PGlite and loads 13 spaces, slow on a loaded 2-core machine. */
const START_TIMEOUT_MS = 120_000;

/**
 * Starts `context-graph serve` on a free port and resolves once it listens. `timeoutMs`: for a
 * bench on a large store, whose start loads every space's index snapshot first.
 */
export async function startServe(
  env: Record<string, string>,
  extraArgs: string[] = [],
  opts: { timeoutMs?: number } = {},
): Promise<RunningProcess & { mcpUrl: string; baseUrl: string }> {
  const timeoutMs = opts.timeoutMs ?? START_TIMEOUT_MS;
  const running = runCli(['serve', '--port', '0', ...extraArgs], env);
  const mcpUrl = await new Promise<string>((resolve, reject) => {
    // A server that never says it listens is killed, or its open pipes would keep the test
    // process alive after the failed hook (no `after` can stop a server it never received).
    const timer = setTimeout(() => {
      running.proc.kill('SIGKILL');
      reject(new Error(`serve did not start in ${timeoutMs} ms:\n${running.stderr()}`));
    }, timeoutMs);
    running.proc.stderr!.on('data', () => {
      const m = /listening on (http:\S+)/.exec(running.stderr());
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    void running.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}:\n${running.stderr()}`));
    });
  });
  return { ...running, mcpUrl, baseUrl: mcpUrl.replace(/\/mcp$/, '') };
}

export async function httpClient(mcpUrl: string, name = 'test-http'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  return client;
}

export async function stdioClient(env: Record<string, string>, name = 'test-stdio'): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [...nodeFlags('stdio'), CLI, 'stdio'], env, stderr: 'pipe' });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/** The toolError:v1 payload of a failed call (its JSON block), or undefined on success. */
export function toolError(result: CallToolResult): { kind: string; code: string; message: string; retryable: boolean; details?: any } | undefined {
  if (!result.isError) return undefined;
  for (const block of [...result.content].reverse()) {
    if (block.type !== 'text') continue;
    try {
      const parsed = JSON.parse(block.text);
      if (parsed?.kind === 'toolError:v1') return parsed;
    } catch {
      // not the JSON block
    }
  }
  throw new Error(`error result without a toolError:v1 block: ${JSON.stringify(result.content)}`);
}

export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

export interface ServerFixture {
  dir: Awaited<ReturnType<typeof tempDir>>;
  server: Awaited<ReturnType<typeof startServe>>;
  client: Client;
}

/**
 * Registers before/after hooks in the current suite: an embedded `serve` on a fresh data dir and
 * one HTTP client, torn down afterwards. `onReady` receives them (assign to the suite's variables).
 */
export function useEmbeddedServer(onReady: (f: ServerFixture) => void, env: Record<string, string> = {}): void {
  let f: ServerFixture | undefined;
  before(async () => {
    const dir = await tempDir();
    const server = await startServe(childEnv({ CONTEXT_GRAPH_DATA_DIR: dir.path, ...env }));
    // Stopped here if the client cannot connect: `after` only knows a fixture that was made.
    const client = await httpClient(server.mcpUrl).catch(async (err: unknown) => {
      await server.stop();
      throw err;
    });
    f = { dir, server, client };
    onReady(f);
  });
  after(async () => {
    await f?.client.close();
    await f?.server.stop();
    await f?.dir.remove();
  });
}
