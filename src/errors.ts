import { randomUUID } from 'node:crypto';
import type { Logger } from './log.js';

/**
 * The error registry: every error a client can see is one of these codes. Transports map an
 * entry to their own shape (MCP tool error `toolError:v1`, JSON-RPC code, REST envelope), so the
 * wording, the retryable flag and the numeric code live here once.
 *
 * Numeric codes follow seed 001 §5 where it defines one; others use the JSON-RPC reserved
 * server range. Retired codes must never be reused for something else.
 *
 * Each entry names the channel its number lives in, because two specifications give -32002 two
 * meanings and both are kept:
 * - `tool`: the `toolError:v1` payload of a tool result (`isError: true`). Seed 001 fixes
 *   -32002 there for INVALID_PARAMS.
 * - `jsonrpc`: the `error` of a JSON-RPC response (resources/read, resources/subscribe). MCP
 *   fixes -32002 there for RESOURCE_NOT_FOUND.
 * A code is only ever emitted in its own channel (`AppError` takes tool codes only), so a client
 * reads -32002 by where it arrived. Numbers are unique within a channel.
 *
 * Besides RESOURCE_NOT_FOUND, the JSON-RPC channel uses JSON-RPC's own standard codes as they
 * are: bad resource parameters (`limit=abc`, a foreign cursor) answer -32602 InvalidParams and
 * an unexpected failure answers -32603 InternalError, each with one clean sentence as message
 * (the details stay in the server log).
 */
export type ErrorChannel = 'tool' | 'jsonrpc';

interface RegistryEntry {
  channel: ErrorChannel;
  rpcCode: number;
  httpStatus: number;
  retryable: boolean;
  hint: string;
}

export const ERROR_REGISTRY = {
  INVALID_PARAMS: { channel: 'tool', rpcCode: -32002, httpStatus: 400, retryable: false, hint: 'Check the parameter constraints in the tool schema.' },
  MISSING_RATIONALE: {
    channel: 'tool',
    rpcCode: -32009,
    httpStatus: 400,
    retryable: false,
    hint: 'Add a `rationale` (10-1000 characters) saying why; it is kept in the transaction log.',
  },
  PRIORS_INCOMPATIBLE: {
    channel: 'tool',
    rpcCode: -32010,
    httpStatus: 409,
    retryable: false,
    hint: 'The nodes are not similar enough to merge; pass force_merge=true to link them with a Relational edge instead, or check the ids.',
  },
  RECOVERY_WINDOW_EXPIRED: { channel: 'tool', rpcCode: -32011, httpStatus: 410, retryable: false, hint: 'The node was deleted more than 30 days ago and is permanently gone.' },
  NODE_NOT_FOUND: { channel: 'tool', rpcCode: -32012, httpStatus: 404, retryable: false, hint: 'Verify the id; query or search to find it.' },
  CIRCULAR_DEPENDENCY: {
    channel: 'tool',
    rpcCode: -32013,
    httpStatus: 409,
    retryable: false,
    hint: 'A circular path was detected; review the graph structure around the named nodes.',
  },
  TOMBSTONE_EXISTS: { channel: 'tool', rpcCode: -32014, httpStatus: 409, retryable: false, hint: 'The node is already soft-deleted; use restore_from_hash first.' },
  SEMANTIC_CANCER_DETECTED: {
    channel: 'tool',
    rpcCode: -32015,
    httpStatus: 409,
    retryable: false,
    hint: 'The operation would concentrate importance on too few nodes; review the importance distribution.',
  },
  SSE_SESSION_EXPIRED: { channel: 'tool', rpcCode: -32016, httpStatus: 404, retryable: false, hint: 'The SSE session is gone; reconnect to GET /sse for a new session.' },
  UNKNOWN_TOOL: { channel: 'tool', rpcCode: -32601, httpStatus: 404, retryable: false, hint: 'List the tools to see the names.' },
  TOOLSET_DISABLED: {
    channel: 'tool',
    rpcCode: -32021,
    httpStatus: 403,
    retryable: false,
    hint: 'Enable the named toolset with the `toolsets` tool ({"enable": ["<name>"]}) or start the server with --toolsets.',
  },
  CONFLICT: { channel: 'tool', rpcCode: -32020, httpStatus: 409, retryable: false, hint: 'The entity changed or already exists.' },
  DB_UNAVAILABLE: { channel: 'tool', rpcCode: -32030, httpStatus: 503, retryable: true, hint: 'The database is unreachable; retry shortly or check DATABASE_URL.' },
  QUEUE_UNAVAILABLE: { channel: 'tool', rpcCode: -32031, httpStatus: 503, retryable: true, hint: 'The job queue is unreachable; retry shortly or check REDIS_URL.' },
  BUSY: { channel: 'tool', rpcCode: -32032, httpStatus: 503, retryable: true, hint: 'Retry shortly.' },
  JOB_FAILED: {
    channel: 'tool',
    rpcCode: -32033,
    httpStatus: 500,
    retryable: false,
    hint: 'The background job failed after its retries; the server log has the reason under the job id.',
  },
  INTERNAL: { channel: 'tool', rpcCode: -32603, httpStatus: 500, retryable: false, hint: 'An internal error; the server log has the details under this correlation id.' },
  JOB_NOT_FOUND: {
    channel: 'tool',
    rpcCode: -32034,
    httpStatus: 404,
    retryable: false,
    hint: 'Use the job id a tool answered (job_id); finished jobs are remembered only for a while.',
  },
  RESOURCE_NOT_FOUND: { channel: 'jsonrpc', rpcCode: -32002, httpStatus: 404, retryable: false, hint: 'See resources/list and resources/templates/list for what can be read.' },
  PARENT_NOT_FOUND: {
    channel: 'tool',
    rpcCode: -32040,
    httpStatus: 404,
    retryable: false,
    hint: 'A referenced phase, path, tide or work does not exist; list that family (e.g. phase_list) for valid ids.',
  },
  VERSION_CONFLICT: {
    channel: 'tool',
    rpcCode: -32041,
    httpStatus: 409,
    retryable: false,
    hint: 'The entity changed since you read it; get it again and retry with its current version as expected_version.',
  },
  VALIDATION_FAILED: {
    channel: 'tool',
    rpcCode: -32042,
    httpStatus: 422,
    retryable: false,
    hint: 'The request is well-formed but breaks a rule of the model; the message names the rule.',
  },
  PATH_NOT_ALLOWED: {
    channel: 'tool',
    rpcCode: -32050,
    httpStatus: 403,
    retryable: false,
    hint: "Only files under the default manifest's folder or the data directory are read; move the file there or set CONTEXT_GRAPH_MANIFEST.",
  },
  MANIFEST_NOT_FOUND: {
    channel: 'tool',
    rpcCode: -32051,
    httpStatus: 404,
    retryable: false,
    hint: 'Create the manifest file (markdown list items under headings) or pass its path.',
  },
  SCRATCHPAD_FULL: {
    channel: 'tool',
    rpcCode: -32052,
    httpStatus: 413,
    retryable: false,
    hint: 'Clear scratchpad keys you no longer need, or keep the value in the graph with `store`.',
  },
  SESSION_REQUIRED: {
    channel: 'tool',
    rpcCode: -32053,
    httpStatus: 400,
    retryable: false,
    hint: 'This tool keeps per-session state; call it over an MCP session (stdio, /mcp or /sse).',
  },
  IDEMPOTENCY_KEY_REUSED: {
    channel: 'tool',
    rpcCode: -32043,
    httpStatus: 409,
    retryable: false,
    hint: 'An idempotency_key names one change: retry with the same arguments, or use a new key (e.g. a fresh UUID) for a different change.',
  },
  ALREADY_APPLIED: {
    channel: 'tool',
    rpcCode: -32044,
    httpStatus: 409,
    retryable: false,
    hint: 'The change was made once and is not repeated; read the entity or the transaction (history) named in the details to see its outcome.',
  },
  RATE_LIMITED: {
    channel: 'tool',
    rpcCode: -32045,
    httpStatus: 429,
    retryable: true,
    hint: 'Too many calls too fast: wait retry_after_ms (details) and retry; the limits are CONTEXT_GRAPH_RATE_LIMIT_*.',
  },
  JOB_CANCELLED: {
    channel: 'tool',
    rpcCode: -32060,
    httpStatus: 409,
    retryable: false,
    hint: 'The job was stopped on request (abort_dream, or its caller cancelled the call); run it again to redo it. Its result, when it has one, says what had finished.',
  },
  SUBSCRIPTIONS_FULL: {
    channel: 'jsonrpc',
    rpcCode: -32046,
    httpStatus: 429,
    retryable: false,
    hint: 'This session holds as many resource subscriptions as it may (CONTEXT_GRAPH_MAX_SUBSCRIPTIONS_PER_SESSION): unsubscribe from some first.',
  },
  VECTORS_PENDING: {
    channel: 'tool',
    rpcCode: -32076,
    httpStatus: 409,
    retryable: true,
    hint: 'The memory has no vectors (or fingerprint) under the current models yet: the embedding and fingerprint jobs run after a store. Retry shortly.',
  },
} as const satisfies Record<string, RegistryEntry>;

export type ErrorCode = keyof typeof ERROR_REGISTRY;
type CodeOfChannel<C extends ErrorChannel> = { [K in ErrorCode]: (typeof ERROR_REGISTRY)[K]['channel'] extends C ? K : never }[ErrorCode];
/** Codes a tool result's `toolError:v1` payload may carry. */
export type ToolErrorCode = CodeOfChannel<'tool'>;
/** Codes of the registry that travel as a JSON-RPC error. */
export type JsonRpcErrorCode = CodeOfChannel<'jsonrpc'>;

export const TOOL_ERROR_CODES = (Object.keys(ERROR_REGISTRY) as ErrorCode[]).filter((c): c is ToolErrorCode => ERROR_REGISTRY[c].channel === 'tool');

/** JSON-RPC's standard codes, used as they are in the JSON-RPC channel. */
export const JSONRPC_INVALID_PARAMS = -32602;
export const JSONRPC_INTERNAL_ERROR = -32603;

/**
 * A JSON-RPC error response with a clean message. The SDK's McpError puts "MCP error <code>: "
 * into its message and the client adds the same prefix again on receipt; the server sends
 * `message` as is, so this one carries the bare sentence and the client prefixes it once.
 */
export class JsonRpcError extends Error {
  override name = 'JsonRpcError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }

  /** An error of the registry's JSON-RPC channel; `data` carries its name and hint. */
  static of(code: JsonRpcErrorCode, message: string, details?: Record<string, unknown>): JsonRpcError {
    const entry = ERROR_REGISTRY[code];
    return new JsonRpcError(entry.rpcCode, message, { code, hint: entry.hint, ...details });
  }
}

/** A failure the client should see as is: a registry code, a safe message, optional details. */
export class AppError extends Error {
  override name = 'AppError';
  readonly code: ToolErrorCode;
  readonly details: Record<string, unknown> | undefined;
  constructor(code: ToolErrorCode, message: string, details?: Record<string, unknown>, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.details = details;
  }
  get retryable(): boolean {
    return ERROR_REGISTRY[this.code].retryable;
  }
}

export function isAppError(err: unknown): err is AppError {
  // Checked by name as well: errors crossing worker threads lose their prototype.
  return err instanceof AppError || (err instanceof Error && err.name === 'AppError' && 'code' in err);
}

export interface ToolErrorPayload {
  kind: 'toolError:v1';
  code: ToolErrorCode;
  rpc_code: number;
  message: string;
  retryable: boolean;
  hint: string;
  details?: Record<string, unknown>;
}

const STORE_CODES: Record<string, ToolErrorCode> = {
  DB_UNAVAILABLE: 'DB_UNAVAILABLE',
  RETRYABLE_CONFLICT: 'BUSY',
  CONFLICT: 'CONFLICT',
};

/** Any failure as an AppError; dependency failures keep their class, unknown ones become INTERNAL. */
export function toAppError(err: unknown, logger: Logger, context: Record<string, unknown> = {}): AppError {
  if (isAppError(err)) return err;
  const code = err instanceof Error ? (err as Error & { code?: unknown }).code : undefined;
  if (err instanceof Error && err.name === 'ZodError') {
    const issues = ((err as Error & { issues?: Array<{ path: PropertyKey[]; message: string }> }).issues ?? []).map((i) => ({
      path: i.path.join('.') || '(arguments)',
      message: i.message,
    }));
    return new AppError('INVALID_PARAMS', `Invalid arguments: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, { issues });
  }
  if (err instanceof Error && err.name === 'StoreError' && STORE_CODES[String(code)]) {
    const mapped = STORE_CODES[String(code)]!;
    logger.warn({ err, ...context }, 'store error');
    return new AppError(mapped, mapped === 'CONFLICT' ? 'The change conflicts with existing data.' : 'The database is unavailable or busy.');
  }
  if (err instanceof Error && err.name === 'JobFailedError') {
    // The handler's message may carry internals: it goes to the log, the client gets the job's identity.
    const job = err as Error & { jobId?: string; jobType?: string };
    logger.warn({ err, ...context }, 'job failed');
    return new AppError('JOB_FAILED', `Job ${job.jobType ?? ''} ${job.jobId ?? ''} failed.`.replace(/\s+/g, ' '), { job_id: job.jobId ?? null, job_type: job.jobType ?? null });
  }
  if (err instanceof Error && err.name === 'QueueUnavailableError') {
    logger.warn({ err, ...context }, 'queue unavailable');
    return new AppError('QUEUE_UNAVAILABLE', 'The job queue is unavailable.');
  }
  const correlationId = randomUUID();
  logger.error({ err, correlationId, ...context }, 'unexpected error');
  return new AppError('INTERNAL', `Internal error (correlation id ${correlationId}).`, { correlation_id: correlationId });
}

/**
 * Maps any failure to a registry payload. Unknown failures are logged with a correlation id and
 * reach the client only as that id: no stack, SQL, path or credential crosses the wire.
 */
export function toErrorPayload(err: unknown, logger: Logger, context: Record<string, unknown> = {}): ToolErrorPayload {
  const appError = toAppError(err, logger, context);
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
