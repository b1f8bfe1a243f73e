import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RunOrder, type Runnable } from '../../src/jobs/run-order.js';

const job = (seq: number, background = false, type = 'work'): Runnable & { name: string } => ({ type, seq, background, readyAt: 0, name: `${background ? 'b' : 'f'}${seq}` });
const idle = { active: 0, activeBackground: 0, concurrency: 2 };

test('a background job waits for the other jobs to be quiet, then runs; a steady stream cannot starve it', () => {
  const order = new RunOrder<ReturnType<typeof job>>(() => true, { quietMs: 50, maxWaitMs: 1_000 });
  order.add(job(1, true), 1_000);
  // A write's job came and went just now: the background job waits out the quiet period.
  order.add(job(2), 1_000);
  assert.equal(order.next(idle, 1_000).job?.name, 'f2');
  order.touched(1_010);
  assert.deepEqual(order.next(idle, 1_020), { wakeInMs: 40 });
  assert.equal(order.next(idle, 1_060).job?.name, 'b1');
  // Foreground activity every 10 ms: the oldest background job still starts after 1 s ready.
  order.add(job(3, true), 2_000);
  for (let t = 2_000; t < 3_000; t += 10) {
    order.touched(t);
    assert.equal(order.next(idle, t).job, undefined, `at ${t}`);
  }
  order.touched(3_000);
  assert.equal(order.next(idle, 3_000).job?.name, 'b3');
});

test('a background job never starts beside a running job that is not, nor in the last free slot', () => {
  const order = new RunOrder<ReturnType<typeof job>>(() => true, { quietMs: 0, maxWaitMs: 0 });
  order.add(job(1, true), 0);
  assert.equal(order.next({ active: 1, activeBackground: 0, concurrency: 2 }, 10).job, undefined, 'a foreground job runs');
  assert.equal(order.next({ active: 1, activeBackground: 1, concurrency: 2 }, 10).job, undefined, 'one slot left');
  assert.equal(order.next({ active: 0, activeBackground: 0, concurrency: 2 }, 10).job?.name, 'b1');
});

test('jobs of types this process does not handle are skipped; foreground jobs run oldest first', () => {
  const order = new RunOrder<ReturnType<typeof job>>((type) => type !== 'elsewhere', { quietMs: 0, maxWaitMs: 0 });
  order.add(job(1, false, 'elsewhere'), 0);
  order.add(job(3), 0);
  order.add(job(2, false, 'other'), 0);
  assert.deepEqual([order.next(idle).job?.name, order.next(idle).job?.name, order.next(idle).job], ['f2', 'f3', undefined]);
});
