import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { toErrorPayload } from '../../src/errors.js';
import { defineJob } from '../../src/jobs/define.js';
import { createInProcessQueue } from '../../src/jobs/in-process.js';
import { consumeJobs } from '../../src/jobs/registry.js';
import { createJobRunner, isJobAccepted } from '../../src/jobs/runner.js';
import { createLogger } from '../../src/log.js';
import { callerJobs, progressOf } from '../../src/tools/kit/jobs.js';

const silent = createLogger('silent');

const count = defineJob({
  type: 'count',
  payload: z.object({ to: z.number().int().min(1) }),
  progress: z.object({ done: z.number(), total: z.number(), phase: z.string() }),
  result: z.object({ counted: z.number() }),
  async handler({ to }, ctx) {
    for (let i = 1; i <= to; i++) await ctx.report({ done: i, total: to, phase: 'counting' });
    return { counted: to };
  },
});

const broken = defineJob({
  type: 'broken',
  payload: z.object({}),
  progress: z.number(),
  result: z.number(),
  handler: () => Promise.reject(new Error('select * from secrets failed: password=hunter2')),
});

test('ctx.jobs.run forwards every progress report to the caller, in order, then returns the result', async () => {
  const queue = createInProcessQueue({ logger: silent });
  try {
    await consumeJobs(queue, [count, broken], {});
    const seen: Array<[number, number | undefined, string | undefined]> = [];
    const jobs = callerJobs(createJobRunner({ queue, logger: silent }), {
      signal: new AbortController().signal,
      progress: async (done, total, message) => void seen.push([done, total, message]),
    });
    const result = await jobs.run(count, { to: 3 });
    assert.deepEqual(result, { counted: 3 });
    // Each message names the job, so the caller can follow it at GET /api/jobs/{id}/events.
    const jobId = /^counting \(job (.+)\)$/.exec(seen[0]![2] ?? '')?.[1];
    assert.ok(jobId, JSON.stringify(seen));
    assert.deepEqual(seen, [
      [1, 3, `counting (job ${jobId})`],
      [2, 3, `counting (job ${jobId})`],
      [3, 3, `counting (job ${jobId})`],
    ]);
  } finally {
    await queue.close();
  }
});

test('ctx.jobs.run answers accepted when the wait is over, and a failed job is JOB_FAILED without its internals', async () => {
  const queue = createInProcessQueue({ logger: silent });
  try {
    await consumeJobs(queue, [count, broken], {});
    const jobs = callerJobs(createJobRunner({ queue, logger: silent }), { signal: new AbortController().signal, progress: async () => {} });
    const accepted = await jobs.run(count, { to: 2 }, { waitMs: 0 });
    assert.ok(isJobAccepted(accepted));
    const failure = await jobs.run(broken, {}).then(
      () => null,
      (err: unknown) => err,
    );
    const payload = toErrorPayload(failure, silent);
    assert.equal(payload.code, 'JOB_FAILED');
    assert.doesNotMatch(payload.message, /hunter2|select/);
  } finally {
    await queue.close();
  }
});

test('progress reports map to notifications: a count, or a record with done/total/message', () => {
  assert.deepEqual(progressOf(4), { progress: 4 });
  assert.deepEqual(progressOf({ done: 2, total: 5, message: 'embedding' }), { progress: 2, total: 5, message: 'embedding' });
  assert.deepEqual(progressOf({ count: 7, phase: 'merge' }), { progress: 7, message: 'merge' });
  assert.equal(progressOf({ phase: 'starting' }), null);
});
