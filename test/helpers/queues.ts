/**
 * Queues for tests of src/jobs: the in-process queue always, BullMQ when REDIS_URL is set. Each
 * BullMQ queue gets a fresh name; `obliterateTestQueues` (register it with `after`) removes them,
 * so parallel runs against one Redis do not collide.
 */
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { createBullmqQueue } from '../../src/jobs/bullmq.js';
import { createInProcessQueue } from '../../src/jobs/in-process.js';
import type { JobQueue } from '../../src/jobs/queue.js';
import { createLogger } from '../../src/log.js';

export const REDIS_URL = process.env.REDIS_URL;
export const PREFIX = 'cg-test';
/** A failure guard only: every wait in the tests ends on an event long before this. */
export const GUARD_MS = 15_000;
export const silent = createLogger('silent');

export interface Backend {
  name: 'in-process' | 'bullmq';
  skip: string | false;
  open(): JobQueue;
}

/** BullMQ queues made by the tests, obliterated at the end. */
const bullmqNames = new Set<string>();

export function bullmqQueue(name = `test-${randomUUID()}`): JobQueue {
  bullmqNames.add(name);
  return createBullmqQueue(REDIS_URL!, { name, prefix: PREFIX, logger: silent, backoffMs: 10 });
}

export async function obliterateTestQueues(): Promise<void> {
  if (!REDIS_URL) return;
  for (const name of bullmqNames) {
    const q = new Queue(name, { connection: { url: REDIS_URL }, prefix: PREFIX });
    await q.obliterate({ force: true });
    await q.close();
  }
  bullmqNames.clear();
}

export const backends: Backend[] = [
  { name: 'in-process', skip: false, open: () => createInProcessQueue({ logger: silent, backoffMs: 5 }) },
  { name: 'bullmq', skip: REDIS_URL ? false : 'REDIS_URL not set', open: () => bullmqQueue() },
];

export function latch<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Opens a queue for one test and always closes it. */
export async function withQueue(backend: Backend, fn: (queue: JobQueue) => Promise<void>): Promise<void> {
  const queue = backend.open();
  try {
    await fn(queue);
  } finally {
    await queue.close();
  }
}

/**
 * Fails after GUARD_MS instead of waiting forever, so a broken event path fails its test and
 * the test still closes its queue (an abandoned test would leave Redis connections open).
 */
export async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing after ${GUARD_MS} ms`)), GUARD_MS);
  });
  try {
    return await Promise.race([promise, guard]);
  } finally {
    clearTimeout(timer);
  }
}
