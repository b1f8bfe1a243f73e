/**
 * The error registry: every error a client can see is one of these codes. Transports map an
 * entry to their own shape (MCP tool error `toolError:v1`, JSON-RPC code, REST envelope), so the
 * wording, the retryable flag and the numeric code live here once.
 *
 * Numeric codes follow seed 001 §5 where it defines one; others use the JSON-RPC reserved
 * server range. Retired codes must never be reused for something else.
 */
export const ERROR_REGISTRY = {
  INVALID_PARAMS: { rpcCode: -32002, httpStatus: 400, retryable: false, hint: 'Check the parameter constraints in the tool schema.' },
  NODE_NOT_FOUND: { rpcCode: -32012, httpStatus: 404, retryable: false, hint: 'Verify the id; query or search to find it.' },
  UNKNOWN_TOOL: { rpcCode: -32601, httpStatus: 404, retryable: false, hint: 'List the tools to see the names.' },
  CONFLICT: { rpcCode: -32020, httpStatus: 409, retryable: false, hint: 'The entity changed or already exists.' },
  DB_UNAVAILABLE: { rpcCode: -32030, httpStatus: 503, retryable: true, hint: 'The database is unreachable; retry shortly or check DATABASE_URL.' },
  QUEUE_UNAVAILABLE: { rpcCode: -32031, httpStatus: 503, retryable: true, hint: 'The job queue is unreachable; retry shortly or check REDIS_URL.' },
  BUSY: { rpcCode: -32032, httpStatus: 503, retryable: true, hint: 'Retry shortly.' },
  INTERNAL: { rpcCode: -32603, httpStatus: 500, retryable: false, hint: 'An internal error; the server log has the details under this correlation id.' },
} as const;

export type ErrorCode = keyof typeof ERROR_REGISTRY;

/** A failure the client should see as is: a registry code, a safe message, optional details. */
export class AppError extends Error {
  override name = 'AppError';
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, options?: { cause?: unknown }) {
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
