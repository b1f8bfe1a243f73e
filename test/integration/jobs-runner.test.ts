/**
 * Typed jobs (defineJob), JobEvents and the runner tools use (`ctx.jobs`), on both queue
 * backends: the in-process queue always, BullMQ when REDIS_URL is set. The BullMQ-only part runs
 * the consumer in a separate process, as `context-graph worker` does.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { defineJob, InvalidJobPayloadError } from '../../src/jobs/define.js';
import { JobFailedError } from '../../src/jobs/queue.js';
import { consumeJobs } from '../../src/jobs/registry.js';
import { createJobRunner, isJobAccepted, JobAccepted } from '../../src/jobs/runner.js';
import { backends, bullmqQueue, GUARD_MS, latch, obliterateTestQueues, PREFIX, REDIS_URL, silent, within, withQueue } from '../helpers/queues.js';
import { countJob, explodeJob, greetJob } from '../fixtures/test-jobs.js';

after(obliterateTestQueues);

/**
 * A job that holds until the test opens its gate, reporting once it started. Closing the queue
 * releases it too, so a failed test still closes its queue.
 */
function gatedJob(gate: Promise<void>) {
  return defineJob({
    type: 'gated',
    payload: z.object({ label: z.string() }),
    progress: z.object({ phase: z.literal('started') }),
    result: z.object({ label: z.string() }),
    async handler({ label }, { report, signal }) {
      await report({ phase: 'started' });
      await Promise.race([gate, once(signal, 'abort')]);
      return { label };
    },
  });
}

for (const backend of backends) {
  describe(`typed jobs and the runner: ${backend.name}`, { skip: backend.skip, timeout: 60_000 }, () => {
    test('an invalid payload is refused at enqueue, and nothing is queued', () =>
      withQueue(backend, async (queue) => {
        const jobs = createJobRunner({ queue, logger: silent });
        const invalid = (err: Error) => {
          assert.ok(err instanceof InvalidJobPayloadError);
          assert.equal(err.code, 'INVALID_PARAMS');
          assert.match(err.message, /^invalid payload for job count: to: /);
          return true;
        };
        await assert.rejects(jobs.run(countJob, { to: 0 }), invalid);
        // @ts-expect-error the payload type comes from the schema: `to` is a number
        await assert.rejects(jobs.enqueue(countJob, { to: 'three' }), invalid);
        // No consumer runs, so anything that had been enqueued would still be waiting.
        assert.deepEqual(await queue.counts(), { waiting: 0, active: 0, failed: 0 });
      }));

    test('the consumer validates again: a bad payload sent past defineJob fails at once', () =>
      withQueue(backend, async (queue) => {
        await consumeJobs(queue, [countJob], {});
        const handle = await queue.enqueue(countJob.type, { to: 'three' }, { attempts: 3 });
        await assert.rejects(handle.finished(GUARD_MS), (err: Error) => {
          assert.ok(err instanceof JobFailedError);
          assert.match(err.message, /^invalid payload for job count: to: /);
          return true;
        });
        assert.deepEqual(await queue.counts(), { waiting: 0, active: 0, failed: 1 }, 'no retry');
      }));

    test('progress reaches the run callback in order, one call at a time, before the result', () =>
      withQueue(backend, async (queue) => {
        await consumeJobs(queue, [countJob], {});
        const jobs = createJobRunner({ queue, logger: silent });
        const seen: string[] = [];
        let inCallback = false;
        const result = await jobs.run(
          countJob,
          { to: 5 },
          {
            waitMs: GUARD_MS,
            async progress(p) {
              assert.equal(inCallback, false, 'callbacks overlap');
              inCallback = true;
              // A slow transport: later reports must queue behind this one, not overtake it.
              await new Promise((resolve) => setImmediate(resolve));
              seen.push(`${p.done}/${p.of}`);
              inCallback = false;
            },
          },
        );
        seen.push('result');
        assert.ok(!isJobAccepted(result));
        assert.deepEqual(result, { counted: 5, pid: process.pid });
        assert.deepEqual(seen, ['1/5', '2/5', '3/5', '4/5', '5/5', 'result']);
      }));

    test('a handler gets the dependencies its consumer built', () =>
      withQueue(backend, async (queue) => {
        await consumeJobs(queue, [greetJob], { greeting: 'Hello' });
        const jobs = createJobRunner({ queue, logger: silent });
        assert.deepEqual(await jobs.run(greetJob, { name: 'Ada' }, { waitMs: GUARD_MS }), { text: 'Hello, Ada' });
      }));

    test('run answers JobAccepted with the id when the wait is over, and the job completes later', () =>
      withQueue(backend, async (queue) => {
        const gate = latch();
        const gated = gatedJob(gate.promise);
        await consumeJobs(queue, [gated], {});
        const jobs = createJobRunner({ queue, logger: silent });
        const started = latch();
        // Followed through the queue's events, not run's progress callback: run stops forwarding
        // when it answers, and on a loaded machine the job may only start after the 50 ms wait.
        const onEnqueued = (jobId: string) => void queue.events.onProgress(jobId, () => started.resolve());
        const outcome = await jobs.run(gated, { label: 'slow' }, { waitMs: 50, onEnqueued });
        assert.ok(outcome instanceof JobAccepted, 'accepted');
        assert.equal(outcome.status, 'accepted');
        assert.equal(outcome.type, 'gated');
        await within(started.promise, 'progress of the gated job');
        // The client follows up by id.
        const completed = latch<unknown>();
        queue.events.onCompleted(outcome.jobId, completed.resolve);
        gate.resolve();
        assert.deepEqual(await within(completed.promise, 'completion of the gated job'), { label: 'slow' });
      }));

    test('waitMs 0 answers JobAccepted at once', () =>
      withQueue(backend, async (queue) => {
        const jobs = createJobRunner({ queue, logger: silent });
        const outcome = await jobs.run(countJob, { to: 1 }, { waitMs: 0 });
        assert.ok(isJobAccepted(outcome));
        assert.equal((await queue.counts()).waiting, 1);
      }));

    test('a failed job rejects run with a JobFailedError carrying only the handler message', () =>
      withQueue(backend, async (queue) => {
        await consumeJobs(queue, [explodeJob], {});
        const jobs = createJobRunner({ queue, logger: silent });
        await assert.rejects(jobs.run(explodeJob, { message: 'disk on fire' }, { waitMs: GUARD_MS }), (err: Error) => {
          assert.ok(err instanceof JobFailedError);
          assert.equal(err.name, 'JobFailedError');
          assert.equal(err.message, 'disk on fire');
          assert.equal(err.jobType, 'explode');
          assert.equal(typeof err.jobId, 'string');
          return true;
        });
        assert.equal((await queue.counts()).failed, 1);
      }));

    test('JobEvents: failed fires once, after the last attempt', () =>
      withQueue(backend, async (queue) => {
        await consumeJobs(queue, [explodeJob], {});
        const jobs = createJobRunner({ queue, logger: silent });
        const handle = await jobs.enqueue(explodeJob, { message: 'still broken' });
        const failures: string[] = [];
        queue.events.onFailed(handle.id, (err) => failures.push(err.message));
        await assert.rejects(handle.finished(GUARD_MS), { name: 'JobFailedError', message: 'still broken' });
        assert.deepEqual(failures, ['still broken'], 'two attempts, one failure event');
      }));

    test('a result or progress that breaks its schema fails the job without a retry', () =>
      withQueue(backend, async (queue) => {
        let calls = 0;
        const liar = defineJob({
          type: 'liar',
          payload: z.object({ lie: z.enum(['result', 'progress']) }),
          progress: z.object({ percent: z.number().max(100) }),
          result: z.object({ ok: z.literal(true) }),
          attempts: 3,
          async handler({ lie }, { report }) {
            calls++;
            if (lie === 'progress') await report({ percent: 250 });
            // The cast stands for a handler bug that the types did not catch (say, JSON from elsewhere).
            return { ok: 'yes' } as unknown as { ok: true };
          },
        });
        await consumeJobs(queue, [liar], {});
        const jobs = createJobRunner({ queue, logger: silent });
        await assert.rejects(jobs.run(liar, { lie: 'result' }, { waitMs: GUARD_MS }), {
          name: 'JobFailedError',
          message: /^invalid result from job liar: ok: /,
        });
        await assert.rejects(jobs.run(liar, { lie: 'progress' }, { waitMs: GUARD_MS }), {
          name: 'JobFailedError',
          message: /^invalid progress from job liar: percent: /,
        });
        assert.equal(calls, 2);
      }));

    test('an aborted signal stops the wait; the job goes on', () =>
      withQueue(backend, async (queue) => {
        const gate = latch();
        const gated = gatedJob(gate.promise);
        await consumeJobs(queue, [gated], {});
        const jobs = createJobRunner({ queue, logger: silent });
        const abort = new AbortController();
        const reason = new Error('the client cancelled');
        const run = jobs.run(gated, { label: 'cancelled' }, { waitMs: GUARD_MS, signal: abort.signal, progress: () => abort.abort(reason) });
        await assert.rejects(run, (err) => err === reason);
        const handle = await jobs.enqueue(gated, { label: 'after' });
        gate.resolve();
        assert.deepEqual(await handle.finished(GUARD_MS), { label: 'after' });
        assert.equal((await queue.counts()).failed, 0);
      }));
  });
}

describe('typed jobs across processes (BullMQ)', { skip: REDIS_URL ? false : 'REDIS_URL not set', timeout: 60_000 }, () => {
  test('progress and result of a job run by another process reach the runner that enqueued it', async () => {
    const { queue, consumer, stop } = startConsumerProcess();
    try {
      const jobs = createJobRunner({ queue, logger: silent });
      const seen: number[] = [];
      const result = await jobs.run(countJob, { to: 6 }, { waitMs: GUARD_MS, progress: (p) => void seen.push(p.done) });
      assert.ok(!isJobAccepted(result));
      assert.equal(result.pid, consumer.pid);
      assert.notEqual(result.pid, process.pid);
      assert.deepEqual(seen, [1, 2, 3, 4, 5, 6]);

      await assert.rejects(jobs.run(explodeJob, { message: 'failed over there' }, { waitMs: GUARD_MS }), {
        name: 'JobFailedError',
        message: 'failed over there',
      });
    } finally {
      await stop();
    }
  });

  test('another front end on the same queue observes the job through its own JobEvents', async () => {
    const { name, queue, stop } = startConsumerProcess();
    const observer = bullmqQueue(name);
    try {
      const jobs = createJobRunner({ queue, logger: silent });
      const handle = await jobs.enqueue(countJob, { to: 3 });
      const seen: unknown[] = [];
      const completed = latch<unknown>();
      observer.events.onProgress(handle.id, (p) => seen.push(p));
      observer.events.onCompleted(handle.id, completed.resolve);
      const result = await within(completed.promise, 'completion seen by the observer');
      assert.deepEqual(
        seen,
        [1, 2, 3].map((done) => ({ done, of: 3 })),
      );
      assert.equal((result as { counted: number }).counted, 3);
    } finally {
      await observer.close();
      await stop();
    }
  });
});

/** A consumer of the test jobs in a child process, on a fresh queue this process enqueues to. */
function startConsumerProcess() {
  const name = `test-${randomUUID()}`;
  const queue = bullmqQueue(name);
  const consumer = spawn(process.execPath, ['--enable-source-maps', fileURLToPath(new URL('../fixtures/job-consumer.js', import.meta.url))], {
    env: { ...process.env, REDIS_URL, QUEUE_NAME: name, QUEUE_PREFIX: PREFIX },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(consumer, 'exit');
  return {
    name,
    queue,
    consumer,
    stop: async () => {
      consumer.kill('SIGTERM');
      await queue.close();
      const guard = setTimeout(() => consumer.kill('SIGKILL'), GUARD_MS);
      const [code, signal] = await exited;
      clearTimeout(guard);
      assert.equal(signal, null, 'the consumer had to be killed: close() left a handle open');
      assert.equal(code, 0);
    },
  };
}
