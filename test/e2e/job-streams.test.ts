import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { childEnv, startServe, tempDir } from '../helpers/cli.js';
import { openEventStream, startDropProxy } from '../helpers/sse.js';

/**
 * A long real job (build_edges over a project of 600 memories, three progress reports) followed
 * three ways: GET /api/jobs/{id}/events, cancelled by the MCP client, and streamed to a legacy
 * SSE session whose connection drops mid-job (EC-MCP-005). Behind a bearer token throughout.
 */
const TOKEN = 'job-streams-test-token-0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const MEMORIES = 600;

type Progress = { progress: number; total?: number; message?: string };

/** The job id a job's progress message names: `… (job <id>)`. */
function jobIdOf(p: Progress): string {
  const m = /\(job ([^)]+)\)$/.exec(p.message ?? '');
  assert.ok(m, `progress names its job: ${JSON.stringify(p)}`);
  return m[1]!;
}

/** Calls build_edges; resolves with the job id at its first progress report, and the call itself. */
function buildEdges(client: Client, signal?: AbortSignal): { firstReport: Promise<string>; reports: Progress[]; result: Promise<CallToolResult> } {
  const reports: Progress[] = [];
  let reported!: (id: string) => void;
  const firstReport = new Promise<string>((resolve) => (reported = resolve));
  const result = client.callTool({ name: 'build_edges', arguments: { project_id: 'big' } }, undefined, {
    timeout: 120_000,
    ...(signal ? { signal } : {}),
    onprogress: (p) => {
      reports.push(p);
      reported(jobIdOf(p));
    },
  }) as Promise<CallToolResult>;
  return { firstReport, reports, result };
}

describe('job progress streams: /api/jobs/{id}/events, cancellation, SSE reconnect', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let server: Awaited<ReturnType<typeof startServe>>;
  let client: Client;

  before(async () => {
    dir = await tempDir();
    server = await startServe(
      childEnv({
        CONTEXT_GRAPH_DATA_DIR: dir.path,
        CONTEXT_GRAPH_AUTO_EDGES: 'off',
        // build_edges over 600 memories may outlast the default 20 s wait on a loaded machine.
        CONTEXT_GRAPH_JOB_WAIT_MS: '110000',
        CONTEXT_GRAPH_TOOLSETS: 'all',
        // The name for the token (an alias of CONTEXT_GRAPH_AUTH_TOKEN): the 401 below shows it is read.
        CONTEXT_GRAPH_TOKEN: TOKEN,
        CONTEXT_GRAPH_SSE_GRACE_MS: '30000',
      }),
    );
    client = new Client({ name: 'job-streams', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { requestInit: { headers: AUTH } }));
    const text = Array.from({ length: MEMORIES }, (_, i) => `Observation ${i} about subsystem s${i % 37} notes latency of ${i * 7} ms in region r${i % 11}.`).join('\n\n');
    const pushed = (await client.callTool({ name: 'push', arguments: { text, project_id: 'big', chunk_size: 16, source_uri: 'doc://big' } }, undefined, {
      timeout: 120_000,
    })) as CallToolResult;
    assert.equal((pushed.structuredContent as any).inserted, MEMORIES, JSON.stringify(pushed.content));
  });
  after(async () => {
    await client?.close();
    await server?.stop();
    await dir?.remove();
  });

  test('GET /api/jobs/{id}/events needs the token, and answers an unknown job 404 JOB_NOT_FOUND', async () => {
    const anonymous = await fetch(`${server.baseUrl}/api/jobs/some-job/events`);
    assert.equal(anonymous.status, 401);
    const unknown = await fetch(`${server.baseUrl}/api/jobs/no-such-job/events`, { headers: AUTH });
    assert.equal(unknown.status, 404);
    const body = (await unknown.json()) as any;
    assert.equal(body.success, false);
    assert.equal(body.details.code, 'JOB_NOT_FOUND');
    assert.match(body.error, /no-such-job/);
  });

  test('a running job streams phase/done/total to GET /api/jobs/{id}/events until it completes', async () => {
    const run = buildEdges(client);
    const jobId = await run.firstReport;
    const stream = await openEventStream(`${server.baseUrl}/api/jobs/${encodeURIComponent(jobId)}/events`, AUTH);
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get('content-type') ?? '', /text\/event-stream/);
    const state = JSON.parse((await stream.next((e) => e.event === 'state')).data);
    assert.equal(state.state, 'active');
    // The counting reports carry done/total; a bare numeric report (no total) may come first.
    const progress = JSON.parse((await stream.next((e) => e.event === 'progress' && JSON.parse(e.data).total !== null)).data);
    assert.equal(progress.job_id, jobId);
    assert.equal(progress.total, MEMORIES);
    assert.ok(progress.done > run.reports[0]!.progress, `a later report than the first: ${JSON.stringify(progress)}`);
    const completed = JSON.parse((await stream.next((e) => e.event === 'completed')).data);
    assert.equal(completed.result.memories, MEMORIES);
    // The stream ends with the job: whatever is left came before the end.
    const left: string[] = [];
    await assert.rejects(async () => {
      for (;;) left.push((await stream.next()).event);
    }, /ended/);
    assert.ok(!left.includes('completed') && !left.includes('failed'), JSON.stringify(left));
    // The call answers the result, or "accepted" with the same job when the job outlasted the
    // runner's 20 s wait (a loaded CI machine): either way the stream above carried the outcome.
    const answer = (await run.result).structuredContent as any;
    if (answer.status === 'accepted') assert.equal(answer.job_id, jobId);
    else assert.equal(answer.memories, MEMORIES);

    // Asked again once it is over: the outcome at once.
    const again = await openEventStream(`${server.baseUrl}/api/jobs/${encodeURIComponent(jobId)}/events`, AUTH);
    assert.equal(JSON.parse((await again.next()).data).result.memories, MEMORIES);
  });

  test('notifications/cancelled for a call waiting on a job stops the job', async () => {
    const abort = new AbortController();
    const run = buildEdges(client, abort.signal);
    const jobId = await run.firstReport;
    // The SDK sends notifications/cancelled for the request and stops waiting.
    abort.abort(new Error('user pressed stop'));
    await assert.rejects(run.result);
    const stream = await openEventStream(`${server.baseUrl}/api/jobs/${encodeURIComponent(jobId)}/events`, AUTH);
    const failed = await stream.next((e) => e.event === 'failed' || e.event === 'completed');
    assert.equal(failed.event, 'failed', `the job did not run to its end: ${failed.data}`);
    assert.match(JSON.parse(failed.data).error, /cancelled by its caller/);
  });

  test('EC-MCP-005: a legacy SSE client that reconnects mid-job keeps receiving its progress and gets the answer', async () => {
    const proxy = await startDropProxy(server.baseUrl);
    const transport = new SSEClientTransport(new URL(`/sse?resume_key=${randomUUID()}`, proxy.url), { requestInit: { headers: AUTH } });
    const sse = new Client({ name: 'job-streams-sse', version: '1.0.0' });
    await sse.connect(transport);
    try {
      const run = buildEdges(sse);
      await run.firstReport;
      const seenBeforeDrop = run.reports.length;
      proxy.drop();
      const result = await run.result;
      const answer = result.structuredContent as any;
      if (answer.status === 'accepted') {
        // The job outlasted even the raised wait (a heavily loaded machine): its outcome is on its stream.
        const events = await openEventStream(`${server.baseUrl}/api/jobs/${encodeURIComponent(answer.job_id)}/events`, AUTH);
        assert.equal(JSON.parse((await events.next((e) => e.event === 'completed')).data).result.memories, MEMORIES);
      } else assert.equal(answer.memories, MEMORIES, JSON.stringify(result.content));
      assert.ok(run.reports.length > seenBeforeDrop, `progress after the reconnect: ${JSON.stringify(run.reports)}`);
      assert.ok(
        run.reports.some((p) => p.progress > run.reports[0]!.progress),
        JSON.stringify(run.reports),
      );
    } finally {
      await sse.close();
      await proxy.close();
    }
  });
});
