import type { Queryable } from './db.js';

/**
 * Transaction-scoped advisory locks: the keys that serialise writers which must not interleave.
 * One list, so two features never pick the same number.
 */
export const LOCKS = {
  /** tx_ids commit in order (readers of the log advance past an id once seen). */
  txOrder: 0x63670002,
  /** One undo/redo at a time: two must not pick the same transactions. */
  undo: 0x63670010,
  /** Entity lookup-or-create in relate must not create the same name twice. */
  relate: 0x63670047,
  /** Project-knowledge ids (seed 002) are numbered per kind: two creates must not pick one number. */
  projectIds: 0x63670048,
} as const;

export async function advisoryXactLock(q: Queryable, key: number): Promise<void> {
  await q.query(`select pg_advisory_xact_lock($1)`, [key]);
}

/** NOTIFY on a channel; Postgres delivers it on commit only. */
export async function notify(q: Queryable, channel: string, payload: string): Promise<void> {
  await q.query(`select pg_notify($1, $2)`, [channel, payload]);
}
