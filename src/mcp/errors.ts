import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { AppError, ERROR_REGISTRY, isAppError, type ErrorCode } from '../errors.js';
import type { Logger } from '../log.js';

export interface ToolErrorPayload {
  kind: 'toolError:v1';
  code: ErrorCode;
  rpc_code: number;
  message: string;
  retryable: boolean;
  hint: string;
  details?: Record<string, unknown>;
}

/** Zod issues as `path: message` lines, with the allowed values or bounds zod reports. */
export function invalidParams(error: z.ZodError, toolName: string, allowedKeys?: readonly string[]): AppError {
  const issues = error.issues.map((issue) => {
    const path = issue.path.length ? issue.path.join('.') : '(arguments)';
    const extra: Record<string, unknown> = {};
    if ('values' in issue && Array.isArray(issue.values)) extra.allowed = issue.values;
    if ('keys' in issue && Array.isArray(issue.keys)) {
      extra.keys = issue.keys;
      if (allowedKeys) extra.allowed = allowedKeys;
    }
    if ('minimum' in issue) extra.minimum = Number(issue.minimum);
    if ('maximum' in issue) extra.maximum = Number(issue.maximum);
    return { path, message: issue.message, ...extra };
  });
  const summary = issues
    .map((i) => `${i.path}: ${i.message}${'keys' in i && 'allowed' in i ? ` (allowed: ${(i.allowed as string[]).join(', ')})` : ''}`)
    .join('; ');
  return new AppError('INVALID_PARAMS', `Invalid arguments for ${toolName}: ${summary}`, { issues });
}

const storeCodes: Record<string, ErrorCode> = {
  DB_UNAVAILABLE: 'DB_UNAVAILABLE',
  RETRYABLE_CONFLICT: 'BUSY',
  CONFLICT: 'CONFLICT',
};

/**
 * Maps any failure to a registry payload. Unknown failures are logged with a correlation id and
 * reach the client only as that id: no stack, SQL, path or credential crosses the wire.
 */
export function toErrorPayload(err: unknown, logger: Logger, context: Record<string, unknown> = {}): ToolErrorPayload {
  let appError: AppError;
  if (isAppError(err)) appError = err;
  else if (err instanceof z.ZodError) appError = invalidParams(err, String(context.tool ?? 'tool'));
  else if (err instanceof Error && err.name === 'StoreError' && storeCodes[String((err as Error & { code?: unknown }).code)]) {
    const code = storeCodes[String((err as Error & { code?: unknown }).code)]!;
    logger.warn({ err, ...context }, 'store error');
    appError = new AppError(code, code === 'CONFLICT' ? 'The change conflicts with existing data.' : 'The database is unavailable or busy.');
  } else if (err instanceof Error && err.name === 'QueueUnavailableError') {
    logger.warn({ err, ...context }, 'queue unavailable');
    appError = new AppError('QUEUE_UNAVAILABLE', 'The job queue is unavailable.');
  } else {
    const correlationId = randomUUID();
    logger.error({ err, correlationId, ...context }, 'unexpected error in a tool call');
    appError = new AppError('INTERNAL', `Internal error (correlation id ${correlationId}).`, { correlation_id: correlationId });
  }
  const entry = ERROR_REGISTRY[appError.code];
  // Client mistakes are routine; log them quietly.
  if (entry.httpStatus < 500) logger.debug({ code: appError.code, ...context }, appError.message);
  return {
    kind: 'toolError:v1',
    code: appError.code,
    rpc_code: entry.rpcCode,
    message: appError.message,
    retryable: entry.retryable,
    hint: entry.hint,
    ...(appError.details ? { details: appError.details } : {}),
  };
}
