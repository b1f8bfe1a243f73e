import type { Logger } from '../log.js';
import { createInProcessQueue } from './in-process.js';
import type { JobQueue } from './queue.js';

/**
 * REDIS_URL set: BullMQ, so N front ends and M workers share one queue. Unset: the in-process
 * queue of the embedded mode. Callers see the same contract either way. BullMQ and ioredis are
 * imported only when chosen, so the embedded mode never loads them (idle footprint, issue 15).
 */
export async function openQueue(config: { redisUrl?: string | undefined; queueName?: string; dependencyDeadlineMs?: number }, logger: Logger): Promise<JobQueue> {
  if (config.redisUrl) {
    logger.info({ backend: 'bullmq' }, 'job queue: BullMQ');
    const { createBullmqQueue } = await import('./bullmq.js');
    return createBullmqQueue(config.redisUrl, {
      logger,
      ...(config.queueName ? { name: config.queueName } : {}),
      ...(config.dependencyDeadlineMs ? { commandTimeoutMs: config.dependencyDeadlineMs } : {}),
    });
  }
  logger.info({ backend: 'in-process' }, 'job queue: in-process');
  // Two at a time: one job's vectors are written while the next one's are computed.
  return createInProcessQueue({ logger, concurrency: 2 });
}
