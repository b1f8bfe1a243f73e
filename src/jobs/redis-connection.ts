import type { Redis } from 'ioredis';
import type { Logger } from '../log.js';

/** At most one Redis error line per source in this window; the rest are counted. */
const ERROR_LOG_INTERVAL_MS = 10_000;

export function waitForReady(client: Redis, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('error', onError);
      client.off('end', onEnd);
      if (err) reject(err);
      else resolve();
    };
    const onReady = () => done();
    const onError = (err: Error) => done(err);
    const onEnd = () => done(new Error('connection ended'));
    const timer = setTimeout(() => done(new Error(`no connection within ${timeoutMs} ms`)), timeoutMs);
    client.on('ready', onReady);
    client.on('error', onError);
    client.on('end', onEnd);
  });
}

export function isConnectionError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as NodeJS.ErrnoException).code;
  return (
    (code !== undefined && /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|ENOTFOUND|EHOSTUNREACH)$/.test(code)) ||
    /Stream isn't writeable|Connection is closed|MaxRetriesPerRequestError|Reached the max retries|Command timed out/i.test(err.message) ||
    err.name === 'MaxRetriesPerRequestError'
  );
}

/** Redis outages produce an error every retry; one line per source per interval is enough. */
export function rateLimitedErrorLog(logger: Logger, base: Record<string, unknown>) {
  const last = new Map<string, { at: number; suppressed: number }>();
  return (source: string, err: unknown) => {
    const now = Date.now();
    const entry = last.get(source);
    if (entry && now - entry.at < ERROR_LOG_INTERVAL_MS) {
      entry.suppressed++;
      return;
    }
    logger.warn({ ...base, source, err, suppressed: entry?.suppressed ?? 0 }, 'job queue: Redis connection error');
    last.set(source, { at: now, suppressed: 0 });
  };
}
