/**
 * Soak and abuse (issue 16), loopback only and bounded in count and time: against one embedded
 * `serve`, (1) 20,000 MCP sessions opened and dropped, (2) 4,000 slow sockets that never finish
 * their headers, (3) 2,000 calls/s for 10 s from one client. A probe client on its own address
 * calls `search` through the REST gateway every 250 ms throughout; the server's RSS is sampled
 * from /proc every 500 ms.
 *
 *   npm run build && node --enable-source-maps dist/bench/soak.js [--sessions 20000] [--slow 4000] [--rate 2000] [--seconds 10]
 *
 * Every abuser uses its own loopback address (127.0.0.x), as separate clients would, so the
 * per-client limits apply to them and not to the probe. Prints one JSON report.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { childEnv, startServe, tempDir } from '../test/helpers/cli.js';
import { log } from './env.js';
import { summarize } from './stats.js';

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '20000' },
    slow: { type: 'string', default: '4000' },
    rate: { type: 'string', default: '2000' },
    seconds: { type: 'string', default: '10' },
  },
});
const SESSIONS = Number(values.sessions);
const SLOW = Number(values.slow);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
/** The sessions phase stops here, whatever it has left to do (20,000 take minutes on a loaded 2-core machine). */
const SESSIONS_CAP_MS = 480_000;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

const agents = new Map<string, Agent>();
function agentFor(from: string, maxSockets: number): Agent {
  let a = agents.get(from);
  if (!a) agents.set(from, (a = new Agent({ keepAlive: true, maxSockets, localAddress: from })));
  return a;
}

function send(port: number, from: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}, maxSockets = 8): Promise<Answer> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: agentFor(from, maxSockets),
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        timeout: 30_000,
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err) => resolve({ status: 0, headers: {}, body: String(err) }));
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

const count = (tally: Record<string, number>, key: string | number) => void (tally[String(key)] = (tally[String(key)] ?? 0) + 1);

async function main(): Promise<void> {
  const dir = await tempDir('cg-bench-soak-');
  const server = await startServe(childEnv({ CONTEXT_GRAPH_DATA_DIR: dir.path, LOG_LEVEL: 'warn', CONTEXT_GRAPH_TOOLSETS: '' }));
  const port = Number(new URL(server.baseUrl).port);
  const pid = server.proc.pid!;
  const rss: Array<{ phase: string; mb: number }> = [];
  let phase = 'idle';
  const sampler = setInterval(() => rss.push({ phase, mb: rssMb(pid) }), 500);

  // Something to find, and the probe.
  for (let i = 0; i < 20; i++)
    await send(port, '127.0.0.1', 'POST', '/api/tool', { tool: 'store', arguments: { content: `Soak note ${i}: pump ${i} is serviced every ${i + 2} weeks.` } });
  const probe: Record<string, { ms: number[]; failures: Record<string, number> }> = {};
  let probing = true;
  const prober = (async () => {
    while (probing) {
      const started = performance.now();
      const a = await send(port, '127.0.0.1', 'POST', '/api/tool', { tool: 'search', arguments: { query: 'pump serviced weeks' } }, {}, 2);
      const p = (probe[phase] ??= { ms: [], failures: {} });
      if (a.status === 200) p.ms.push(performance.now() - started);
      else count(p.failures, a.status);
      await sleep(250);
    }
  })();
  const report: Record<string, unknown> = { load_average_start: loadavg().map((l) => Number(l.toFixed(2))), rss_start_mb: rssMb(pid) };
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'soak', version: '1' } } };
  const drop = (from: string, id: string) => send(port, from, 'DELETE', '/mcp', undefined, { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' });

  // 0. What one open session costs the server (RSS), from 100 held open from 2 addresses: with
  // the configured session memory, it makes the bound the server must stay within.
  phase = 'kept-sessions';
  const keptBefore = rssMb(pid);
  const kept: Array<{ from: string; id: string }> = [];
  for (let i = 0; i < 100; i++) {
    const from = `127.0.4.${(i % 2) + 1}`;
    const id = (await send(port, from, 'POST', '/mcp', init)).headers['mcp-session-id'];
    if (typeof id === 'string') kept.push({ from, id });
  }
  await sleep(1_000);
  const perSessionMb = (rssMb(pid) - keptBefore) / Math.max(1, kept.length);
  for (const k of kept) await drop(k.from, k.id);
  const config = loadConfig({});
  const boundMb = Math.round(report.rss_start_mb as number) + Math.round(config.maxSessions * (Math.max(0, perSessionMb) + config.sessionMemoryBytes / 2 ** 20));
  report.memory_bound = {
    max_sessions: config.maxSessions,
    session_memory_bytes: config.sessionMemoryBytes,
    measured_mb_per_open_session: Number(perSessionMb.toFixed(3)),
    bound_mb: boundMb,
    how: 'rss_start + max_sessions × (measured RSS per open session + session_memory_bytes)',
  };

  // 1. Sessions opened and dropped, 50 at a time from 50 addresses.
  phase = 'sessions';
  const sessions: Record<string, number> = {};
  let opened = 0;
  const started1 = Date.now();
  await Promise.all(
    Array.from({ length: 50 }, async (_, w) => {
      const from = `127.0.1.${w + 1}`;
      while (opened < SESSIONS && Date.now() - started1 < SESSIONS_CAP_MS) {
        opened++;
        const a = await send(port, from, 'POST', '/mcp', init);
        count(sessions, `open_${a.status}`);
        const id = a.headers['mcp-session-id'];
        if (typeof id === 'string') count(sessions, `drop_${(await drop(from, id)).status}`);
      }
    }),
  );
  report.sessions = { attempted: opened, seconds: (Date.now() - started1) / 1000, answers: sessions, rss_after_mb: rssMb(pid) };
  log(`soak: sessions ${JSON.stringify(report.sessions)}`);

  // 2. Slow sockets: half a request, never finished, 500 per address.
  phase = 'slow-sockets';
  const sockets: Socket[] = [];
  const slow = { connected: 0, refused_or_reset: 0, closed_by_server: 0, answered_408: 0 };
  for (let i = 0; i < SLOW; i++) {
    const s = connect({ host: '127.0.0.1', port, localAddress: `127.0.2.${Math.floor(i / 500) + 1}` });
    let got = '';
    s.on('connect', () => {
      slow.connected++;
      s.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    });
    s.on('data', (d: Buffer) => (got += d.toString()));
    s.on('error', () => slow.refused_or_reset++);
    s.on('close', () => {
      slow.closed_by_server++;
      if (got.startsWith('HTTP/1.1 408')) slow.answered_408++;
    });
    sockets.push(s);
    if (i % 200 === 0) await sleep(1);
  }
  // Held until the server's header deadline (default 10 s) has closed them, or the cap.
  const started2 = Date.now();
  while (slow.closed_by_server < SLOW && Date.now() - started2 < 20_000) await sleep(250);
  for (const s of sockets) s.destroy();
  report.slow_sockets = { ...slow, seconds_until_all_closed: slow.closed_by_server >= SLOW ? (Date.now() - started2) / 1000 : null, rss_after_mb: rssMb(pid) };
  log(`soak: slow sockets ${JSON.stringify(report.slow_sockets)}`);

  // 3. Open-loop calls at RATE per second from one client for SECONDS.
  phase = 'call-flood';
  const flood: Record<string, number> = {};
  const inFlight = new Set<Promise<void>>();
  const started3 = Date.now();
  let sent = 0;
  while (Date.now() - started3 < SECONDS * 1000) {
    const due = Math.floor(((Date.now() - started3) / 1000) * RATE);
    for (; sent < due; sent++) {
      if (inFlight.size >= 2_000) {
        count(flood, 'skipped_client_side');
        continue;
      }
      const p = send(port, '127.0.3.1', 'POST', '/api/tool', { tool: 'query', arguments: { query: 'pump', limit: 1 } }, {}, 256).then((a) => {
        count(flood, a.status === 429 ? '429_RATE_LIMITED' : a.status);
        inFlight.delete(p);
      });
      inFlight.add(p);
    }
    await sleep(5);
  }
  await Promise.all(inFlight);
  report.call_flood = { offered: sent, offered_per_s: Math.round(sent / SECONDS), seconds_until_drained: (Date.now() - started3) / 1000, answers: flood, rss_after_mb: rssMb(pid) };
  log(`soak: call flood ${JSON.stringify(report.call_flood)}`);

  phase = 'after';
  await sleep(3_000);
  probing = false;
  await prober;
  clearInterval(sampler);
  const health = JSON.parse((await send(port, '127.0.0.1', 'GET', '/healthz')).body) as { status: string };
  report.rss_end_mb = rssMb(pid);
  report.rss_max_mb = Math.max(...rss.map((r) => r.mb));
  report.health_after = health.status;
  report.probe = Object.fromEntries(Object.entries(probe).map(([k, v]) => [k, { ...summarize(v.ms), failures: v.failures }]));
  report.probe_all = summarize(Object.values(probe).flatMap((v) => v.ms));
  report.probe_failures = Object.values(probe).reduce((n, v) => n + Object.values(v.failures).reduce((a, b) => a + b, 0), 0);
  report.rss_peak_within_bound = (report.rss_max_mb as number) <= boundMb;
  report.load_average_end = loadavg().map((l) => Number(l.toFixed(2)));
  for (const a of agents.values()) a.destroy();
  await server.stop();
  await dir.remove();
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
