/**
 * The one storage contract. Two drivers implement it (PGlite embedded, postgres.js for a
 * server) over one SQL dialect: `$1`-style parameters, the same result types from both.
 *
 * Result types are normalised by the drivers so callers never branch on the driver:
 * int8 → number, numeric → number, timestamptz → Date, jsonb → parsed value,
 * text[] → string[], bytea → Uint8Array.
 *
 * Not in the contract: connection pooling knobs, driver-specific APIs, error classes
 * (see `translateDbError`).
 */
export type Row = Record<string, unknown>;

export interface Queryable {
  query<T extends Row = Row>(text: string, params?: readonly unknown[]): Promise<T[]>;
}

export type DbDriver = 'pglite' | 'postgres';

export interface Db extends Queryable {
  readonly driver: DbDriver;
  /** Commit when `fn` resolves, roll back when it throws; the first real error is rethrown. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** LISTEN on a channel; resolves to an unsubscribe function. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  /** Runs several statements at once (migrations); no parameters. */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}
