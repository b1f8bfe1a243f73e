import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { memoryEventLog, redisEventLog, type EventLog } from '../src/transports/event-store.js';
import { childEnv, startServe, tempDir } from '../test/helpers/cli.js';
import { openEventStream } from '../test/helpers/sse.js';

/**
 * Transport overhead, run on its own: `npm run build && node dist/bench/sse-fanout.js`.
 * 1. Events/s one front end sustains to 100 concurrent /sse clients (heartbeats every 20 ms).
 * 2. Added latency of the Streamable HTTP event store per message (in memory; Redis if REDIS_URL).
 */
const CLIENTS = 100;
const SECONDS = 5;

async function fanout(): Promise<void> {
  const dir = await tempDir();
  const server = await startServe(childEnv({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_SSE_HEARTBEAT_MS: '20' }));
  try {
    const streams = await Promise.all(Array.from({ length: CLIENTS }, () => openEventStream(`${server.baseUrl}/sse`)));
    let received = 0;
    let running = true;
    const readers = streams.map(async (s) => {
      while (running) {
        await s.next((e) => e.event === 'heartbeat').catch(() => (running = false));
        received++;
      }
    });
    await sleep(1_000);
    const start = received;
    const t0 = performance.now();
    await sleep(SECONDS * 1_000);
    const rate = ((received - start) * 1_000) / (performance.now() - t0);
    running = false;
    streams.forEach((s) => s.close());
    await Promise.allSettled(readers);
    console.log(`sse fan-out: ${CLIENTS} clients, ${rate.toFixed(0)} events/s received (ideal ${CLIENTS * 50}/s at a 20 ms heartbeat)`);
  } finally {
    await server.stop();
    await dir.remove();
  }
}

async function storeLatency(name: string, log: EventLog): Promise<void> {
  const message = { jsonrpc: '2.0' as const, method: 'notifications/progress', params: { progressToken: 1, progress: 1, total: 3, message: 'E1: 37 candidates' } };
  const n = 2_000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await log.append('bench-session', 'stream', message);
  const perMessage = (performance.now() - t0) / n;
  await log.forget('bench-session');
  await log.close();
  console.log(`event store (${name}): ${(perMessage * 1_000).toFixed(1)} µs added per message`);
}

await fanout();
await storeLatency('memory', memoryEventLog());
if (process.env.REDIS_URL) await storeLatency('redis', redisEventLog(process.env.REDIS_URL, `cg-bench-${process.pid}`));
