/**
 * One conformance suite for both JobQueue backends (STYLE-ANCHORS 10): the in-process queue
 * always, BullMQ when REDIS_URL is set (test/helpers/queues.ts). Typed jobs, JobEvents and the
 * runner are tested in jobs-runner.test.ts.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createBullmqQueue } from '../../src/jobs/bullmq.js';
import { createInProcessQueue } from '../../src/jobs/in-process.js';
import { JobTimeoutError, UnrecoverableJobError, type JobProgress } from '../../src/jobs/queue.js';
import { backends, bullmqQueue, GUARD_MS, latch, obliterateTestQueues, PREFIX, REDIS_URL, silent, withQueue } from '../helpers/queues.js';

after(obliterateTestQueues);

for (const backend of backends) {
  describe(`JobQueue conformance: ${backend.name}`, { skip: backend.skip, timeout: 60_000 }, () => {
    test('reports its backend', () =>
      withQueue(backend, async (queue) => {
        assert.equal(queue.backend, backend.name);
      }));

    test('runs a job and finished() resolves with its result', () =>
      withQueue(backend, async (queue) => {
        await queue.consume({ double: async (p) => ({ doubled: (p as { x: number }).x * 2 }) });
        const handle = await queue.enqueue('double', { x: 21 });
        assert.equal(typeof handle.id, 'string');
        assert.deepEqual(await handle.finished(GUARD_MS), { doubled: 42 });
      }));

    test('a handler that returns nothing finishes with null', () =>
      withQueue(backend, async (queue) => {
        await queue.consume({ noop: async () => undefined });
        const handle = await queue.enqueue('noop', {});
        assert.equal(await handle.finished(GUARD_MS), null);
      }));

    test('progress events arrive in order', () =>
      withQueue(backend, async (queue) => {
        const steps: JobProgress[] = [1, 2, { stage: 'embed', done: 3 }, 4, 5];
        const handle = await queue.enqueue('steps', {});
        const seen: JobProgress[] = [];
        const all = latch();
        const off = handle.onProgress((p) => {
          seen.push(p);
          if (seen.length === steps.length) all.resolve();
        });
        await queue.consume({
          steps: async (_p, ctx) => {
            for (const step of steps) await ctx.reportProgress(step);
            return 'ok';
          },
        });
        assert.equal(await handle.finished(GUARD_MS), 'ok');
        await all.promise;
        off();
        assert.deepEqual(seen, steps);
      }));

    test('a handler that fails twice is retried (attempts 1, 2, 3) and finishes', () =>
      withQueue(backend, async (queue) => {
        const attempts: number[] = [];
        await queue.consume({
          flaky: async (_p, ctx) => {
            attempts.push(ctx.attempt);
            if (ctx.attempt < 3) throw new Error(`transient failure ${ctx.attempt}`);
            return 'third time';
          },
        });
        const handle = await queue.enqueue('flaky', {});
        assert.equal(await handle.finished(GUARD_MS), 'third time');
        assert.deepEqual(attempts, [1, 2, 3]);
      }));

    test('finished() rejects with the last error once all attempts fail', () =>
      withQueue(backend, async (queue) => {
        const attempts: number[] = [];
        await queue.consume({
          doomed: async (_p, ctx) => {
            attempts.push(ctx.attempt);
            throw new Error(`failure ${ctx.attempt}`);
          },
        });
        const handle = await queue.enqueue('doomed', {}, { attempts: 2 });
        await assert.rejects(handle.finished(GUARD_MS), { message: 'failure 2' });
        assert.deepEqual(attempts, [1, 2]);
        assert.equal((await queue.counts()).failed, 1);
      }));

    test('UnrecoverableJobError fails the job at once after 1 attempt', () =>
      withQueue(backend, async (queue) => {
        let calls = 0;
        await queue.consume({
          broken: async () => {
            calls++;
            throw new UnrecoverableJobError('payload can never work');
          },
        });
        const handle = await queue.enqueue('broken', {}, { attempts: 3 });
        await assert.rejects(handle.finished(GUARD_MS), { message: 'payload can never work' });
        assert.equal(calls, 1);
        // Nothing is left to retry.
        assert.deepEqual(await queue.counts(), { waiting: 0, active: 0, failed: 1 });
      }));

    test('an error named UnrecoverableJobError counts too (prototype lost across threads)', () =>
      withQueue(backend, async (queue) => {
        let calls = 0;
        await queue.consume({
          cloned: async () => {
            calls++;
            const err = new Error('from a worker thread');
            err.name = 'UnrecoverableJobError';
            throw err;
          },
        });
        const handle = await queue.enqueue('cloned', {});
        await assert.rejects(handle.finished(GUARD_MS), { message: 'from a worker thread' });
        assert.equal(calls, 1);
      }));

    test('finished(timeout) rejects with JobTimeoutError while the job goes on to complete', () =>
      withQueue(backend, async (queue) => {
        const started = latch();
        const release = latch();
        await queue.consume({
          slow: async () => {
            started.resolve();
            await release.promise;
            return 'late but done';
          },
        });
        const handle = await queue.enqueue('slow', {});
        await started.promise;
        await assert.rejects(handle.finished(20), (err: Error) => {
          assert.ok(err instanceof JobTimeoutError);
          assert.equal(err.name, 'JobTimeoutError');
          return true;
        });
        release.resolve();
        assert.equal(await handle.finished(GUARD_MS), 'late but done');
      }));

    test('jobs enqueued before consume() wait, then run once consume starts', () =>
      withQueue(backend, async (queue) => {
        const handles = await Promise.all([1, 2, 3].map((x) => queue.enqueue('early', { x })));
        assert.equal((await queue.counts()).waiting, 3);
        const runs = new Map<number, number>();
        await queue.consume({
          early: async (payload) => {
            const p = payload as { x: number };
            runs.set(p.x, (runs.get(p.x) ?? 0) + 1);
            return p.x * 10;
          },
        });
        assert.deepEqual(await Promise.all(handles.map((h) => h.finished(GUARD_MS))), [10, 20, 30]);
        assert.deepEqual([...runs].sort(), [
          [1, 1],
          [2, 1],
          [3, 1],
        ]);
      }));

    test('jobId dedupes while the job waits, and runs again once it finished', () =>
      withQueue(backend, async (queue) => {
        const first = await queue.enqueue('once', { n: 1 }, { jobId: 'node-42' });
        const second = await queue.enqueue('once', { n: 2 }, { jobId: 'node-42' });
        assert.equal(second.id, first.id);
        const payloads: number[] = [];
        await queue.consume({
          once: async (payload) => {
            const p = payload as { n: number };
            payloads.push(p.n);
            return p.n;
          },
        });
        assert.equal(await second.finished(GUARD_MS), 1);
        assert.deepEqual(payloads, [1]);
        // The dedupe window is waiting/running only: the same id is new work afterwards.
        const third = await queue.enqueue('once', { n: 3 }, { jobId: 'node-42' });
        assert.equal(await third.finished(GUARD_MS), 3);
        assert.deepEqual(payloads, [1, 3]);
      }));

    test('a delayed job waits out its delay, counts as waiting meanwhile and dedupes by jobId', () =>
      withQueue(backend, async (queue) => {
        const ran: Array<{ n: number; at: number }> = [];
        await queue.consume({ later: async (p) => ran.push({ n: (p as { n: number }).n, at: Date.now() }) });
        const enqueuedAt = Date.now();
        const first = await queue.enqueue('later', { n: 1 }, { jobId: 'fp-project', delayMs: 400 });
        const second = await queue.enqueue('later', { n: 2 }, { jobId: 'fp-project', delayMs: 400 });
        assert.equal(second.id, first.id, 'a burst of follow-ups is one job');
        assert.equal((await queue.counts()).waiting, 1);
        await first.finished(GUARD_MS);
        assert.deepEqual(
          ran.map((r) => r.n),
          [1],
        );
        assert.ok(ran[0]!.at - enqueuedAt >= 350, `started ${ran[0]!.at - enqueuedAt} ms after enqueue`);
      }));

    test('background jobs run after the waiting jobs that are not', () =>
      withQueue(backend, async (queue) => {
        const order: string[] = [];
        const handles = [];
        for (const name of ['b1', 'b2']) handles.push(await queue.enqueue('work', { name }, { background: true }));
        for (const name of ['f1', 'f2']) handles.push(await queue.enqueue('work', { name }));
        await queue.consume({ work: async (p) => order.push((p as { name: string }).name) }, { concurrency: 1 });
        await Promise.all(handles.map((h) => h.finished(GUARD_MS)));
        assert.deepEqual(order, ['f1', 'f2', 'b1', 'b2']);
      }));

    test('the concurrency bound is respected', () =>
      withQueue(backend, async (queue) => {
        const LIMIT = 2;
        const TOTAL = 6;
        let inFlight = 0;
        let maxInFlight = 0;
        let started = 0;
        const gates: Array<() => void> = [];
        const handles = await Promise.all(Array.from({ length: TOTAL }, (_, i) => queue.enqueue('bounded', { i })));
        await queue.consume(
          {
            bounded: async () => {
              inFlight++;
              started++;
              maxInFlight = Math.max(maxInFlight, inFlight);
              // Each job holds its slot until the bound is reached, then lets the oldest go:
              // an unbounded queue would start more before any release.
              await new Promise<void>((resolve) => {
                gates.push(resolve);
                if (inFlight >= LIMIT) gates.shift()!();
              });
              inFlight--;
              if (started === TOTAL) for (const open of gates.splice(0)) open();
            },
          },
          { concurrency: LIMIT },
        );
        await Promise.all(handles.map((h) => h.finished(GUARD_MS)));
        assert.equal(started, TOTAL);
        assert.equal(maxInFlight, LIMIT);
      }));

    test('consume() takes every handler in one call', () =>
      withQueue(backend, async (queue) => {
        await queue.consume({ a: async () => 'a' });
        await assert.rejects(queue.consume({ b: async () => 'b' }), /already called/);
      }));

    test('close() aborts the signal and waits for running jobs', async () => {
      const queue = backend.open();
      const started = latch();
      let sawAbort = false;
      let finishedRunning = false;
      await queue.consume({
        long: async (_p, ctx) => {
          started.resolve();
          if (!ctx.signal.aborted) await once(ctx.signal, 'abort');
          sawAbort = ctx.signal.aborted;
          finishedRunning = true;
          return 'wrapped up';
        },
      });
      await queue.enqueue('long', {});
      await started.promise;
      await queue.close();
      assert.ok(sawAbort);
      assert.ok(finishedRunning);
      await assert.rejects(queue.enqueue('long', {}));
    });
  });
}

describe('in-process queue only', () => {
  test('background jobs never take the last free slot: a job a caller waits for starts at once', async () => {
    const queue = createInProcessQueue({ logger: silent });
    try {
      const release = latch();
      let backgroundRunning = 0;
      let most = 0;
      await queue.consume(
        {
          slow: async () => {
            most = Math.max(most, ++backgroundRunning);
            await release.promise;
            backgroundRunning--;
          },
          quick: async () => backgroundRunning,
        },
        { concurrency: 2 },
      );
      const slow = await Promise.all([1, 2, 3].map(() => queue.enqueue('slow', {}, { background: true })));
      await new Promise((r) => setTimeout(r, 50));
      // One background job runs; the other slot stays free for this one.
      assert.equal(await (await queue.enqueue('quick', {})).finished(GUARD_MS), 1);
      release.resolve();
      await Promise.all(slow.map((h) => h.finished(GUARD_MS)));
      assert.equal(most, 1);
    } finally {
      await queue.close();
    }
  });
  test('a background job that yields between batches waits while other jobs keep coming, then goes on', async () => {
    const queue = createInProcessQueue({ logger: silent, concurrency: 2, backgroundQuietMs: 40, backgroundMaxWaitMs: 5_000 });
    try {
      const steps: string[] = [];
      let yielded = 0;
      const writing = latch();
      await queue.consume({
        batches: async (_p, ctx) => {
          steps.push('batch 1');
          await writing.promise;
          const asked = Date.now();
          await ctx.yieldToCallers!();
          yielded = Date.now() - asked;
          steps.push('batch 2');
        },
        write: async () => steps.push('write'),
      });
      const background = await queue.enqueue('batches', {}, { background: true });
      await new Promise((r) => setTimeout(r, 20));
      // Writes every 10 ms for 150 ms: the second batch waits for them, then for 40 ms of quiet.
      for (let i = 0; i < 15; i++) {
        await queue.enqueue('write', {});
        if (i === 0) writing.resolve();
        await new Promise((r) => setTimeout(r, 10));
      }
      await background.finished(GUARD_MS);
      assert.deepEqual(steps.slice(0, 1), ['batch 1']);
      assert.equal(steps.at(-1), 'batch 2');
      assert.equal(steps.filter((s) => s === 'write').length, 15);
      assert.ok(yielded >= 140, `yielded for ${yielded} ms`);
    } finally {
      await queue.close();
    }
  });
});

describe('BullMQ only', { skip: REDIS_URL ? false : 'REDIS_URL not set', timeout: 60_000 }, () => {
  test('a consumer in a separate process runs jobs this process enqueued', async () => {
    const name = `test-${randomUUID()}`;
    const queue = bullmqQueue(name);
    const consumer = spawn(process.execPath, ['--enable-source-maps', fileURLToPath(new URL('../fixtures/queue-consumer.js', import.meta.url))], {
      env: { ...process.env, REDIS_URL, QUEUE_NAME: name, QUEUE_PREFIX: PREFIX },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = once(consumer, 'exit');
    try {
      const handles = await Promise.all([2, 3, 4].map((x) => queue.enqueue('square', { x })));
      const results = (await Promise.all(handles.map((h) => h.finished(GUARD_MS)))) as Array<{ square: number; pid: number }>;
      assert.deepEqual(
        results.map((r) => r.square),
        [4, 9, 16],
      );
      for (const r of results) {
        assert.equal(r.pid, consumer.pid);
        assert.notEqual(r.pid, process.pid);
      }
    } finally {
      consumer.kill('SIGTERM');
      await queue.close();
    }
    // The consumer exits by itself after close(): it left nothing open.
    const guard = setTimeout(() => consumer.kill('SIGKILL'), GUARD_MS);
    const [code, signal] = await exited;
    clearTimeout(guard);
    assert.equal(signal, null, 'the consumer had to be killed: close() left a handle open');
    assert.equal(code, 0);
  });
});

describe('BullMQ without Redis', { timeout: 30_000 }, () => {
  test('enqueue rejects quickly with a retryable QueueUnavailableError', async () => {
    // Port 1: nothing listens there, so connecting is refused at once.
    const queue = createBullmqQueue('redis://127.0.0.1:1', { name: `test-${randomUUID()}`, prefix: PREFIX, logger: silent });
    try {
      const t0 = performance.now();
      await assert.rejects(queue.enqueue('anything', {}), (err: Error & { retryable?: boolean; code?: string }) => {
        assert.equal(err.name, 'QueueUnavailableError');
        assert.equal(err.retryable, true);
        assert.equal(err.code, 'QUEUE_UNAVAILABLE');
        return true;
      });
      const elapsed = performance.now() - t0;
      assert.ok(elapsed < 1000, `took ${elapsed} ms`);
      await assert.rejects(queue.counts(), { name: 'QueueUnavailableError' });
    } finally {
      await queue.close();
    }
  });
});
