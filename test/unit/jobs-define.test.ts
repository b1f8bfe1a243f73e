import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { defineJob, type JobHandlerContext } from '../../src/jobs/define.js';
import { createInProcessQueue } from '../../src/jobs/in-process.js';
import { consumeJobs } from '../../src/jobs/registry.js';
import { createJobRunner } from '../../src/jobs/runner.js';
import { createLogger } from '../../src/log.js';

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

/** Compile-time guarantees: never called, the build fails if one of these type-checks. */
export function typeChecks(queue: Parameters<typeof consumeJobs>[0]): void {
  const needsSearch = defineJob({
    type: 'needs-search',
    payload: z.object({}),
    progress: z.number(),
    result: z.null(),
    handler: async (_p, ctx: JobHandlerContext<number, { db: unknown; search: unknown }>) => (void ctx.deps.search, null),
  });
  // @ts-expect-error a consumer must provide every dependency of every job it registers
  void consumeJobs(queue, [needsSearch], { db: null });

  const runner = createJobRunner({ queue });
  // @ts-expect-error payloads are typed by their schema
  void runner.run(tick, { n: '1' });
  void runner.run(tick, { n: 1 }, {
    // @ts-expect-error progress is typed by its schema
    progress: (p: { percent: number }) => void p,
  });
}
