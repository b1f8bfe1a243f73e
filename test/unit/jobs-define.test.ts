import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { defineJob, type JobHandlerContext } from '../../src/jobs/define.js';
import { createInProcessQueue } from '../../src/jobs/in-process.js';
import { consumeJobs } from '../../src/jobs/registry.js';
import { createJobRunner } from '../../src/jobs/runner.js';
import { createLogger } from '../../src/log.js';
import { embedJob } from '../../src/services/embedding.js';
import { consumeAllJobs, JOBS, type JobDeps } from '../../src/services/jobs.js';

const silent = createLogger('silent');

const tick = defineJob({
  type: 'tick',
  payload: z.object({ n: z.number() }),
  progress: z.number(),
  result: z.number(),
  handler: async ({ n }) => n,
});

test('a job type must be a lowercase name', () => {
  for (const type of ['', 'Embed', 'two words', '9lives']) {
    assert.throws(() => defineJob({ ...tick, type }), /job type must be lowercase/, type);
  }
  assert.equal(defineJob({ ...tick, type: 'dream.consolidate-v2' }).type, 'dream.consolidate-v2');
});

test('a consumer refuses two definitions of one type, and consumes nothing', async () => {
  const queue = createInProcessQueue({ logger: silent });
  try {
    await assert.rejects(consumeJobs(queue, [tick, { ...tick }], {}), /two job definitions have the type tick/);
    // consume() was never reached: it can still be called once.
    await consumeJobs(queue, [tick], {});
  } finally {
    await queue.close();
  }
});

test('JOBS: one definition per type, the embed job first', () => {
  assert.equal(JOBS[0], embedJob);
  assert.equal(new Set(JOBS.map((j) => j.type)).size, JOBS.length);
});

test('consumeAllJobs registers the embed job with its payload check', async () => {
  const queue = createInProcessQueue({ logger: silent });
  try {
    // The payload check fails before the handler could touch a dependency, so none is needed.
    await consumeAllJobs(queue, {} as JobDeps);
    const handle = await queue.enqueue('embed', { nids: [] });
    await assert.rejects(handle.finished(5_000), { name: 'JobFailedError', message: /^invalid payload for job embed: nids: / });
  } finally {
    await queue.close();
  }
});

/** Compile-time guarantees: never called, the build fails if one of these type-checks. */
export function typeChecks(queue: Parameters<typeof consumeJobs>[0]): void {
  const needsSearch = defineJob({
    type: 'needs-search',
    payload: z.object({}),
    progress: z.number(),
    result: z.null(),
    handler: async (_p, ctx: JobHandlerContext<number, JobDeps & { search: unknown }>) => (void ctx.deps.search, null),
  });
  // @ts-expect-error a consumer must provide every dependency of every job it registers
  void consumeJobs(queue, [needsSearch], {} as JobDeps);
  // @ts-expect-error JOBS only takes jobs whose dependencies JobDeps provides
  const jobs: typeof JOBS = [embedJob, needsSearch];
  void jobs;

  const runner = createJobRunner({ queue });
  // @ts-expect-error payloads are typed by their schema
  void runner.run(embedJob, { nids: ['1'] });
  void runner.run(
    embedJob,
    { nids: [1] },
    {
      // @ts-expect-error progress is typed by its schema
      progress: (p: { percent: number }) => void p,
    },
  );
}
