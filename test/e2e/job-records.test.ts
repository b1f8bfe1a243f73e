import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { Queue } from 'bullmq';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { JobRecordsService } from '../../src/services/job-records.js';
import { startHttpServer, type HttpServer } from '../../src/transports/http-server.js';
import { restGateway } from '../../src/transports/rest-gateway.js';
import { tempDir } from '../helpers/cli.js';
import { inMemoryClient } from '../helpers/in-memory.js';
import { backends, obliterateTestQueues, withQueue } from '../helpers/queues.js';

const REDIS_URL = process.env.REDIS_URL;
const logger = createLogger('silent');
const STACK = /at \w+ \(|\.ts:\d|\.js:\d|node_modules/;

/**
 * Job records (knowledge://jobs, GET /api/jobs) on both queue backends, with the real app in
 * process: a dream answered "accepted" and read back later, a job that failed, a dream aborted
 * before it started, an unknown id, and paging newest first.
 */
for (const backend of [
  { name: 'in-process', skip: false as const, env: {} },
  { name: 'bullmq', skip: REDIS_URL ? (false as const) : 'REDIS_URL not set', env: { REDIS_URL: REDIS_URL ?? '', CONTEXT_GRAPH_QUEUE: `cg-jobs-test-${randomUUID()}` } },
]) {
  describe(`job records on the ${backend.name} queue`, { skip: backend.skip }, () => {
    let app: App;
    let client: Client;
    let http: HttpServer;
    let dir: Awaited<ReturnType<typeof tempDir>>;
    const ids = { completed: '', failed: '', cancelled: '' };

    const read = async (uri: string): Promise<any> => JSON.parse(((await client.readResource({ uri })).contents[0] as { text: string }).text);
    const get = async (path: string): Promise<{ status: number; body: any }> => {
      const res = await fetch(`${http.baseUrl}${path}`);
      return { status: res.status, body: await res.json() };
    };
    /** Reads a job until it has ended (the guard only stops a broken run). */
    async function ended(id: string): Promise<any> {
      for (let i = 0; i < 600; i++) {
        const job = (await read(`knowledge://jobs/${id}`)).items[0];
        if (job.finished_at) return job;
        await sleep(50);
      }
      assert.fail(`job ${id} never ended`);
    }

    before(async () => {
      dir = await tempDir();
      // Wait 0: every tool that runs a job answers "accepted" at once, and the outcome is read later.
      const config = loadConfig({
        CONTEXT_GRAPH_DATA_DIR: dir.path,
        CONTEXT_GRAPH_TOOLSETS: 'all',
        CONTEXT_GRAPH_AUTO_EDGES: 'off',
        CONTEXT_GRAPH_JOB_WAIT_MS: '0',
        ...backend.env,
      });
      app = await createApp(config, logger);
      client = await inMemoryClient(app, { name: 'job-records', actor: 'job-records' });
      http = await startHttpServer({ host: '127.0.0.1', port: 0, logger, health: () => app.health(), transports: [restGateway(app)] });

      const dream = (await client.callTool({ name: 'trigger_dream', arguments: { phase: 'rem', project_id: 'empty' } })) as CallToolResult;
      const answer = dream.structuredContent as any;
      assert.equal(answer.status, 'accepted', JSON.stringify(answer));
      ids.completed = answer.job_id;
      const link = dream.content.find((b) => b.type === 'resource_link');
      assert.equal(link?.type === 'resource_link' && link.uri, `knowledge://jobs/${encodeURIComponent(ids.completed)}`, 'the accepted answer links its job');
      await ended(ids.completed);

      // A producer of another version: the consumer rejects the payload and the job fails for good.
      const bad = await app.queue.enqueue('dreams.dream', { not: 'a dream' }, { attempts: 1 });
      ids.failed = bad.id;
      await bad.finished().catch(() => {});

      // abort_dream before the job starts: it runs, finds the flag and stops with nothing done.
      const { job, payload } = await app.services.dreams.prepareDream('rem', {
        projectId: 'empty',
        budget: { max_operations: 100, max_ms: 10_000 },
        windowHours: 24,
        minCoRetrievals: 2,
        maxHops: 3,
        minSimilarity: 0.9,
        unusedDays: 30,
        sampled: {},
        actor: 'job-records',
      });
      await app.services.dreams.abort({ dreamId: payload.dream_id, projectId: 'empty' });
      const run = await app.jobs.enqueue(job, payload, { jobId: payload.dream_id });
      ids.cancelled = run.id;
      assert.equal((await run.finished()).status, 'aborted');
    });
    after(async () => {
      await client?.close();
      await http?.close();
      await app?.close();
      await dir?.remove();
      if (REDIS_URL && backend.name === 'bullmq') {
        const q = new Queue(backend.env.CONTEXT_GRAPH_QUEUE!, { connection: { url: REDIS_URL } });
        await q.obliterate({ force: true });
        await q.close();
      }
    });

    test('a completed job: its result (as the job schema reads it), progress and times stay readable', async () => {
      const job = (await read(`knowledge://jobs/${ids.completed}`)).items[0];
      assert.equal(job.state, 'completed');
      assert.equal(job.name, 'dreams.dream');
      assert.equal(job.result.status, 'completed');
      assert.deepEqual(
        job.result.phases.map((p: any) => p.phase),
        ['rem'],
      );
      assert.equal(job.progress.phase, 'rem');
      assert.match(job.progress.message, /^rem: committed/);
      assert.ok(job.progress.done >= 2 && job.progress.partial.counts);
      assert.ok(job.created_at <= job.started_at && job.started_at <= job.finished_at);
      assert.equal(job.error, undefined);
      assert.deepEqual((await get(`/api/jobs/${encodeURIComponent(ids.completed)}`)).body, job);
    });

    test('a failed job: the registry code and a one-line message, no stack', async () => {
      const job = (await read(`knowledge://jobs/${ids.failed}`)).items[0];
      assert.equal(job.state, 'failed');
      assert.equal(job.error.code, 'JOB_FAILED');
      assert.match(job.error.message, /^invalid payload for job dreams\.dream: /);
      assert.ok(!STACK.test(JSON.stringify(job)), JSON.stringify(job));
      assert.equal(job.result, undefined);
    });

    test('a dream aborted before it ran reads cancelled, with what its result says', async () => {
      const job = (await get(`/api/jobs/${encodeURIComponent(ids.cancelled)}`)).body;
      assert.equal(job.state, 'cancelled');
      assert.equal(job.error.code, 'JOB_CANCELLED');
      assert.equal(job.result.status, 'aborted');
      assert.deepEqual(job.result.phases, []);
    });

    test('unknown id: RESOURCE_NOT_FOUND naming it over MCP, 404 JOB_NOT_FOUND over REST', async () => {
      const err = await client.readResource({ uri: 'knowledge://jobs/no-such-job' }).then(
        () => assert.fail('an unknown job should not read'),
        (e: any) => e,
      );
      assert.equal(err.code, -32002);
      assert.equal(err.data?.code, 'RESOURCE_NOT_FOUND');
      assert.match(err.message, /no job no-such-job/);
      const rest = await get('/api/jobs/no-such-job');
      assert.equal(rest.status, 404);
      assert.equal(rest.body.details.code, 'JOB_NOT_FOUND');
      assert.match(rest.body.error, /no-such-job/);
      assert.equal((await get('/api/jobs?state=sleeping')).status, 400);
    });

    test('knowledge://jobs and GET /api/jobs list newest first, page by cursor, filter by state and name', async () => {
      const mine = [ids.cancelled, ids.failed, ids.completed];
      const all = (await read('knowledge://jobs?limit=100')).items.map((j: any) => j.id);
      assert.deepEqual(
        all.filter((id: string) => mine.includes(id)),
        mine,
        'newest first',
      );
      const paged: string[] = [];
      let uri: string | null = 'knowledge://jobs?limit=1';
      while (uri) {
        const page: any = await read(uri);
        assert.equal(page.kind, 'jobs:v1');
        assert.ok(page.items.length <= 1);
        paged.push(...page.items.map((j: any) => j.id));
        uri = page.next_cursor ? `knowledge://jobs?limit=1&cursor=${page.next_cursor}` : null;
      }
      assert.deepEqual(paged, all);
      assert.deepEqual(
        (await read('knowledge://jobs?state=failed')).items.map((j: any) => j.id),
        [ids.failed],
      );
      assert.deepEqual(
        (await read('knowledge://jobs?state=cancelled')).items.map((j: any) => j.id),
        [ids.cancelled],
      );
      assert.deepEqual(
        (await read('knowledge://jobs?state=completed&name=dreams.dream')).items.map((j: any) => j.id),
        [ids.completed],
      );
      assert.deepEqual((await read('knowledge://jobs?name=dreams.consolidate')).items, []);

      const rest: string[] = [];
      let path: string | null = '/api/jobs?limit=2';
      while (path) {
        const { status, body } = await get(path);
        assert.equal(status, 200);
        for (const job of body.jobs)
          assert.deepEqual(
            Object.keys(job)
              .filter((k) => !['result', 'error'].includes(k))
              .sort(),
            ['created_at', 'finished_at', 'id', 'name', 'progress', 'started_at', 'state'],
          );
        rest.push(...body.jobs.map((j: any) => j.id));
        path = body.next_cursor ? `/api/jobs?limit=2&cursor=${body.next_cursor}` : null;
      }
      assert.deepEqual(rest, all);
      const { resources } = await client.listResources();
      assert.ok(resources.some((r) => r.uri === 'knowledge://jobs'));
      const { resourceTemplates } = await client.listResourceTemplates();
      assert.ok(resourceTemplates.some((t) => t.uriTemplate === 'knowledge://jobs/{id}'));
    });
  });
}

describe('a waiting job cancelled on the queue reads cancelled (both backends)', () => {
  after(obliterateTestQueues);
  for (const backend of backends) {
    test(backend.name, { skip: backend.skip }, () =>
      withQueue(backend, async (queue) => {
        // Nobody consumes this queue: the job waits until the cancel.
        const handle = await queue.enqueue('dreams.dream', { x: 1 });
        assert.equal(await queue.cancel!(handle.id, 'stopped by the test'), true);
        const records = new JobRecordsService({ queue });
        const job = await records.get(handle.id);
        assert.equal(job?.state, 'cancelled');
        assert.deepEqual(job?.error, { code: 'JOB_CANCELLED', message: 'stopped by the test' });
        assert.equal(job?.started_at, null);
        assert.deepEqual(
          (await records.list({ state: 'cancelled', afterKey: null, limit: 10 })).map((r) => r.job.id),
          [handle.id],
        );
      }),
    );
  }
});
