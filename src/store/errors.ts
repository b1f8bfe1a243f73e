/**
 * One translator for driver failures, so PGlite and postgres.js surface the same codes and the
 * layers above never look at a driver's error class or SQLSTATE (STYLE-ANCHORS 8).
 */
export type StoreErrorCode = 'CONFLICT' | 'RETRYABLE_CONFLICT' | 'DB_UNAVAILABLE' | 'DB_ERROR';

export class StoreError extends Error {
  override name = 'StoreError';
  readonly code: StoreErrorCode;
  readonly retryable: boolean;
  /** The SQLSTATE when the server reported one. */
  readonly sqlState: string | undefined;
  /** The violated constraint, for CONFLICT (schema names are safe to log; values are not). */
  readonly constraint: string | undefined;
  // Declared, never assigned as fields: they are defined non-enumerable in the constructor so
  // loggers and JSON.stringify skip them (postgres.js queryError does the same).
  declare readonly original: unknown;
  declare readonly sql: string | undefined;
  declare readonly params: readonly unknown[] | undefined;

  constructor(code: StoreErrorCode, message: string, fields: { sqlState?: string; constraint?: string; original?: unknown; sql?: string; params?: readonly unknown[] } = {}) {
    super(message);
    this.code = code;
    this.retryable = code === 'RETRYABLE_CONFLICT' || code === 'DB_UNAVAILABLE';
    this.sqlState = fields.sqlState;
    this.constraint = fields.constraint;
    // Not `cause`: pino's error serializer appends every cause's message and stack, and a
    // driver message can quote the offending value.
    Object.defineProperties(this, {
      original: { value: fields.original, enumerable: false },
      sql: { value: fields.sql, enumerable: false },
      params: { value: fields.params, enumerable: false },
    });
  }
}

export function isStoreError(err: unknown): err is StoreError {
  // By name too: errors crossing a worker boundary lose their prototype.
  return err instanceof StoreError || (err instanceof Error && err.name === 'StoreError' && 'code' in err);
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  // postgres.js client-side codes
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
]);

// Server messages in these SQLSTATE classes name schema objects, not values, so they are safe to
// keep: 08 connection, 23 integrity (values go to `detail`), 25 transaction state, 40 rollback,
// 42 syntax/undefined object, 53 resources, 55 object state, 57 operator intervention.
// Class 22 (data exception) quotes the rejected input and is replaced by a generic message.
const SAFE_MESSAGE_CLASSES = new Set(['08', '23', '25', '40', '42', '53', '55', '57']);

interface DriverErrorFields {
  code?: unknown;
  message?: unknown;
  constraint?: unknown; // PGlite
  constraint_name?: unknown; // postgres.js
}

/**
 * Maps any failure from either driver to a StoreError. The SQL text and parameters, when given,
 * are attached non-enumerably for debugging; the message never contains them.
 */
export function translateDbError(err: unknown, context: { sql?: string; params?: readonly unknown[] } = {}): StoreError {
  if (isStoreError(err)) return err;
  const e = (typeof err === 'object' && err !== null ? err : {}) as DriverErrorFields;
  const rawCode = typeof e.code === 'string' ? e.code : undefined;
  const sqlState = rawCode && /^[0-9A-Z]{5}$/.test(rawCode) ? rawCode : undefined;
  const driverMessage = typeof e.message === 'string' ? e.message : String(err);
  const constraint = typeof e.constraint_name === 'string' ? e.constraint_name : typeof e.constraint === 'string' ? e.constraint : undefined;
  const base = { original: err, sql: context.sql, params: context.params, ...(sqlState ? { sqlState } : {}) };

  if (sqlState === '23505') {
    return new StoreError('CONFLICT', `unique constraint ${constraint ?? '(unknown)'} violated`, { ...base, ...(constraint ? { constraint } : {}) });
  }
  if (sqlState === '40001' || sqlState === '40P01') {
    return new StoreError('RETRYABLE_CONFLICT', `${sqlState === '40001' ? 'serialization failure' : 'deadlock detected'}; retry the transaction`, base);
  }
  if (
    (sqlState && (sqlState.startsWith('08') || sqlState.startsWith('57P') || sqlState === '53300')) ||
    (rawCode && UNAVAILABLE_CODES.has(rawCode)) ||
    /PGlite is closed/i.test(driverMessage)
  ) {
    return new StoreError('DB_UNAVAILABLE', `database unavailable: ${firstLine(driverMessage)}`, base);
  }
  if (sqlState) {
    const message = SAFE_MESSAGE_CLASSES.has(sqlState.slice(0, 2)) ? `${firstLine(driverMessage)} (SQLSTATE ${sqlState})` : `database error SQLSTATE ${sqlState}`;
    return new StoreError('DB_ERROR', message, base);
  }
  // Client-side failures (parameter serialisation and the like) describe the client's own
  // state; keep the first line, bounded.
  return new StoreError('DB_ERROR', `database client error: ${firstLine(driverMessage).slice(0, 200)}`, base);
}

function firstLine(s: string): string {
  const nl = s.indexOf('\n');
  return nl === -1 ? s : s.slice(0, nl);
}

/**
 * Picks the error a failed `transaction()` rethrows, the same way on both drivers: the callback's
 * own error untouched, except that a follow-on 25P02 ("current transaction is aborted") or a
 * COMMIT that turned into ROLLBACK is replaced by the first statement that really failed
 * (postgres.js `begin` does the same). Driver failures of BEGIN/COMMIT are translated.
 * @internal shared by the two drivers
 */
export function settleTransactionError(err: unknown, callbackFailure: { error: unknown } | undefined, firstError: StoreError | undefined): unknown {
  if (callbackFailure && err === callbackFailure.error) {
    return firstError && err !== firstError && isAbortedEcho(err) ? firstError : err;
  }
  if (firstError && (isAbortedEcho(err) || err === firstError.original)) return firstError;
  return translateDbError(err);
}

function isAbortedEcho(err: unknown): boolean {
  if (isStoreError(err)) return err.sqlState === '25P02';
  return (err as { code?: unknown } | null)?.code === '25P02';
}
