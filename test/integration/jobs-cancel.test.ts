import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { backends, GUARD_MS, latch, obliterateTestQueues, withQueue } from '../helpers/queues.js';

after(obliterateTestQueues);

/** `state()` and `cancel()` on both backends: what GET /api/jobs/{id}/events and MCP cancellation rely on. */
for (const backend of backends) {
  describe(`JobQueue state and cancel: ${backend.name}`, { skip: backend.skip, timeout: 60_000 }, () => {
    test('state() follows a job from running to completed; an unknown id is unknown', () =>
      withQueue(backend, async (queue) => {
        const started = latch();
        const release = latch();
        await queue.consume({
          gated: async () => {
            started.resolve();
            await release.promise;
            return { answer: 42 };
          },
        });
        const handle = await queue.enqueue('gated', {});
        await started.promise;
        assert.deepEqual(await queue.state!(handle.id), { state: 'active' });
        release.resolve();
        await handle.finished(GUARD_MS);
        assert.deepEqual(await queue.state!(handle.id), { state: 'completed', result: { answer: 42 } });
        assert.deepEqual(await queue.state!(`missing-${randomUUID()}`), { state: 'unknown' });
      }));

    test('cancel() aborts a running job once, without retries, and it fails with the reason', () =>
      withQueue(backend, async (queue) => {
        const attempts: number[] = [];
        const started = latch();
        await queue.consume({
          long: async (_p, ctx) => {
            attempts.push(ctx.attempt);
            started.resolve();
            // Batches of work, checking the signal between them as real handlers do.
            for (let batch = 0; batch < 500; batch++) {
              if (ctx.signal.aborted) throw new Error('stopped between batches');
              await new Promise((r) => setTimeout(r, 20));
            }
            return 'ran to the end';
          },
        });
        const handle = await queue.enqueue('long', {}, { attempts: 3 });
        await started.promise;
        assert.equal(await queue.cancel!(handle.id, 'stop: the user cancelled'), true);
        await assert.rejects(handle.finished(GUARD_MS), /stop: the user cancelled/);
        assert.deepEqual(attempts, [1]);
        assert.deepEqual(await queue.state!(handle.id), { state: 'failed', error: 'stop: the user cancelled' });
        assert.equal(await queue.cancel!(handle.id), false, 'nothing left to cancel');
      }));

    test('cancel() of a waiting job means it never runs', () =>
      withQueue(backend, async (queue) => {
        const ran: string[] = [];
        const handle = await queue.enqueue('never', {});
        assert.equal(await queue.cancel!(handle.id, 'not wanted any more'), true);
        await assert.rejects(handle.finished(GUARD_MS), /not wanted any more/);
        await queue.consume({ never: async () => void ran.push('ran') });
        const probe = await queue.enqueue('never', {});
        await probe.finished(GUARD_MS);
        assert.deepEqual(ran, ['ran'], 'only the job enqueued after the cancel ran');
      }));
  });
}
