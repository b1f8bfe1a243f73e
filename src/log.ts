import pino from 'pino';

export type Logger = pino.Logger;

/**
 * Logs go to stderr only: in stdio mode stdout carries JSON-RPC and nothing else.
 * Synchronous writes so a crash does not lose the line that explains it.
 */
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ level, base: { pid: process.pid } }, pino.destination({ fd: 2, sync: true }));
}
