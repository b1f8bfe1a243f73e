import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { Queue } from 'bullmq';
import postgres from 'postgres';
import { ulid } from 'ulid';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { childEnv, httpClient, runCli, startServe, tempDir } from '../helpers/cli.js';
import { SLOW } from '../helpers/slow.js';

const DATABASE_URL = process.env.DATABASE_URL;
const REDIS_URL = process.env.REDIS_URL;
const SKIP = SLOW || (!DATABASE_URL || !REDIS_URL ? 'DATABASE_URL and REDIS_URL not set' : false);
type Progress = { progress: number; total?: number; message?: string };

async function ok(client: Client, name: string, args: Record<string, unknown>, onprogress?: (p: Progress) => void): Promise<any> {
  const r = (await client.callTool({ name, arguments: args }, undefined, { timeout: 300_000, ...(onprogress ? { onprogress } : {}) })) as CallToolResult;
  assert.equal(r.isError, undefined, `${name}: ${JSON.stringify(r.content)}`);
  return r.structuredContent;
}

async function readJson(client: Client, uri: string): Promise<any> {
  return JSON.parse(((await client.readResource({ uri })).contents[0] as { text: string }).text);
}

/**
 * Issue 12: a dream over Streamable HTTP in the distributed deployment. `serve` (Postgres + BullMQ)
 * enqueues, a separate `context-graph worker` process runs the dream; its phase progress reaches
 * the MCP client through Redis; abort_dream (a flag in the dreams table, polled by the worker)
 * stops it mid-phase. Afterwards: the aborted phase left nothing, the log holds exactly the
 * committed phases, undo works, and knowledge://jobs/{id} reads the job as cancelled.
 */
test('a dream run by a worker process streams phases over Streamable HTTP, is aborted mid-phase, and leaves the store consistent', { skip: SKIP }, async (t) => {
  const dbName = `cg_dream_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const queueName = `cg-dream-e2e-${randomUUID()}`;
  const admin = postgres(DATABASE_URL!, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${dbName}`);
  const url = new URL(DATABASE_URL!);
  url.pathname = `/${dbName}`;
  const dir = await tempDir();
  const env = childEnv({ DATABASE_URL: url.toString(), REDIS_URL, CONTEXT_GRAPH_QUEUE: queueName, CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_JOB_WAIT_MS: '280000' });
  const server = await startServe(env);
  const worker = runCli(['worker', '--concurrency', '2'], env);
  const client = await httpClient(server.mcpUrl, 'dream-distributed');
  t.after(async () => {
    await client.close();
    await server.stop();
    await worker.stop();
    const q = new Queue(queueName, { connection: { url: REDIS_URL! } });
    await q.obliterate({ force: true });
    await q.close();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
    await dir.remove();
  });

  // A store with work for a dream: a chain of tickets, and searches that return them together.
  // 500 memories (what one NREM replays): on an idle machine a 200-memory dream ends (~0.1 s)
  // before an abort arrives.
  const ids = Array.from({ length: 500 }, () => ulid());
  await ok(client, 'import_records', {
    project_id: 'big',
    records: [
      ...ids.map((id, i) => ({ type: 'memory', id, content: `Ticket ${i}: the customer in region ${i % 7} reported slow checkout on day ${i % 11}.` })),
      ...ids.slice(1).map((id, i) => ({ type: 'edge', src: ids[i], dst: id, predicate: 'follows', weight: 0.5, metadata: { method: 'sequence' } })),
    ],
  });
  for (let i = 0; i < 12; i++) await ok(client, 'search', { query_text: `slow checkout region ${i % 7} day ${i % 11}`, project_id: 'big', score_threshold: 0 });
  const txBefore = (await ok(client, 'history', { limit: 1 })).items[0].tx_id as number;

  const phaseReports: string[] = [];
  let aborted = null as Promise<any> | null;
  const dream = await ok(client, 'trigger_dream', { phase: 'full', project_id: 'big', min_similarity: 0.5 }, (p) => {
    if (!/^(nrem|rem):/.test(p.message ?? '')) return;
    phaseReports.push(p.message!);
    // Two phase events seen: stop the dream while its phase is still at work.
    if (!aborted && phaseReports.length >= 2) aborted = ok(client, 'abort_dream', { project_id: 'big' });
  });
  assert.ok(phaseReports.length >= 2, `phase progress streamed from the worker: ${JSON.stringify(phaseReports)}`);
  assert.match(phaseReports[0]!, /\(job [^)]+\)$/, 'each report names its job');
  assert.ok(aborted, 'the abort was sent');
  assert.equal((await aborted).requested, true);
  assert.equal(dream.status, 'aborted', JSON.stringify(dream));
  assert.ok(['nrem', 'rem'].includes(dream.aborted_in));
  t.diagnostic(`aborted in ${dream.aborted_in} after ${JSON.stringify(phaseReports)}`);

  // The log holds exactly the committed phases, none of the aborted one.
  const committed = dream.phases.map((p: any) => p.tx_id).filter((id: number | null) => id !== null);
  const since = (await ok(client, 'history', { limit: 100 })).items.filter((tx: any) => tx.tx_id > txBefore);
  assert.deepEqual(
    since
      .filter((tx: any) => tx.op.startsWith('dream.'))
      .map((tx: any) => tx.tx_id)
      .sort(),
    [...committed].sort(),
    JSON.stringify(since.map((tx: any) => [tx.tx_id, tx.op])),
  );
  assert.ok(!since.some((tx: any) => tx.op === `dream.${dream.aborted_in}`), `no ${dream.aborted_in} transaction`);
  if (dream.aborted_in === 'nrem') {
    const triples = await readJson(client, 'knowledge://graph/triples?limit=100');
    assert.ok(!triples.items.some((e: any) => e.predicate === 'co_retrieved' || e.predicate === 'summarizes'), 'no NREM edge or summary');
  }
  assert.equal((await ok(client, 'get_amortized_shortcuts', { project_id: 'big' })).shortcuts.length, 0, 'no REM shortcut');
  const status = (await ok(client, 'get_dream_status', { dream_id: dream.dream_id })).recent[0];
  assert.equal(status.status, 'aborted');
  assert.match(status.error, /rolled back/);

  // The job's record, read after the fact on the front end from BullMQ's storage.
  const job = (await readJson(client, `knowledge://jobs/${encodeURIComponent(dream.job_id)}`)).items[0];
  assert.equal(job.state, 'cancelled', JSON.stringify(job));
  assert.equal(job.name, 'dreams.dream');
  assert.equal(job.error.code, 'JOB_CANCELLED');
  assert.equal(job.result.aborted_in, dream.aborted_in);
  assert.ok(job.progress && ['nrem', 'rem'].includes(job.progress.phase));
  assert.ok(job.finished_at);

  // Consistent afterwards: a budgeted NREM runs to its end on the worker, and undo reverts it. The
  // searches are asked again first: when the abort landed in REM, the committed NREM has already
  // counted the first ones (evidence is never counted twice), and would have nothing left to do.
  for (let i = 0; i < 12; i++) await ok(client, 'search', { query_text: `slow checkout region ${i % 7} day ${i % 11}`, project_id: 'big', score_threshold: 0 });
  const next = await ok(client, 'trigger_dream', { phase: 'nrem', project_id: 'big', budget: { max_operations: 1_000, max_ms: 60_000 } });
  assert.equal(next.status, 'completed', JSON.stringify(next));
  const tx = next.phases[0].tx_id as number | null;
  assert.ok(tx, `the NREM changed something: ${JSON.stringify(next.phases[0])}`);
  await ok(client, 'undo', { tx_id: tx });
  const reverted = (await ok(client, 'history', { limit: 100 })).items.find((x: any) => x.tx_id === tx);
  assert.ok(reverted.reverted_by, 'undo reverted the dream transaction');
  assert.equal((await readJson(client, `knowledge://jobs/${encodeURIComponent(next.job_id)}`)).items[0].state, 'completed');
});

/**
 * A worker killed (SIGKILL) mid-dream: BullMQ finds the job stalled once its lock lapses and hands
 * it to the other worker, which runs the dream to its end; each phase is one transaction, so the
 * log holds each phase exactly once and the caller gets the result.
 */
test('a dream whose worker is killed mid-phase restarts on another worker and applies each phase once', { skip: SKIP }, async (t) => {
  const dbName = `cg_dreamk_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const queueName = `cg-dream-kill-${randomUUID()}`;
  const admin = postgres(DATABASE_URL!, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${dbName}`);
  const url = new URL(DATABASE_URL!);
  url.pathname = `/${dbName}`;
  const dir = await tempDir();
  const env = childEnv({ DATABASE_URL: url.toString(), REDIS_URL, CONTEXT_GRAPH_QUEUE: queueName, CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_JOB_WAIT_MS: '280000' });
  const server = await startServe(env);
  const first = runCli(['worker', '--concurrency', '2'], env);
  let second: ReturnType<typeof runCli> | null = null;
  const client = await httpClient(server.mcpUrl, 'dream-kill');
  t.after(async () => {
    await client.close();
    await server.stop();
    await first.stop();
    await second?.stop();
    const q = new Queue(queueName, { connection: { url: REDIS_URL! } });
    await q.obliterate({ force: true });
    await q.close();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
    await dir.remove();
  });

  const ids = Array.from({ length: 200 }, () => ulid());
  await ok(client, 'import_records', {
    project_id: 'big',
    records: [
      ...ids.map((id, i) => ({ type: 'memory', id, content: `Ticket ${i}: the customer in region ${i % 7} reported slow checkout on day ${i % 11}.` })),
      ...ids.slice(1).map((id, i) => ({ type: 'edge', src: ids[i], dst: id, predicate: 'follows', weight: 0.5, metadata: { method: 'sequence' } })),
    ],
  });
  for (let i = 0; i < 12; i++) await ok(client, 'search', { query_text: `slow checkout region ${i % 7} day ${i % 11}`, project_id: 'big', score_threshold: 0 });
  const txBefore = (await ok(client, 'history', { limit: 1 })).items[0].tx_id as number;

  let killedAt = null as string | null;
  const dream = await ok(client, 'trigger_dream', { phase: 'full', project_id: 'big', min_similarity: 0.5 }, (p) => {
    if (killedAt || !/^nrem: replay/.test(p.message ?? '')) return;
    killedAt = p.message!;
    first.proc.kill('SIGKILL');
    second = runCli(['worker', '--concurrency', '2'], env);
  });
  assert.ok(killedAt, 'the first worker was killed mid-NREM');
  t.diagnostic(`killed at ${killedAt}`);
  assert.equal(dream.status, 'completed', JSON.stringify(dream));
  assert.deepEqual(
    dream.phases.map((p: any) => p.phase),
    ['nrem', 'rem'],
  );
  const since = (await ok(client, 'history', { limit: 100 })).items.filter((tx: any) => tx.tx_id > txBefore && tx.op.startsWith('dream.'));
  const ops = since.map((tx: any) => tx.op).sort();
  assert.equal(ops.filter((op: string) => op === 'dream.nrem').length <= 1 && ops.filter((op: string) => op === 'dream.rem').length <= 1, true, JSON.stringify(ops));
  assert.deepEqual(
    since.map((tx: any) => tx.tx_id).sort(),
    dream.phases
      .map((p: any) => p.tx_id)
      .filter((x: number | null) => x !== null)
      .sort(),
  );
  assert.equal((await readJson(client, `knowledge://jobs/${encodeURIComponent(dream.job_id)}`)).items[0].state, 'completed');
});
