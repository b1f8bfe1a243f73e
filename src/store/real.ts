import { StoreError } from './errors.js';

/**
 * A JavaScript number (a double) as a `real` (float4) column takes it. Every repository that
 * writes a `real` or `real[]` column passes its values through here: nodes.importance and
 * confidence, edges.weight and confidence, fingerprints, utl_lambdas, ego_snapshots,
 * north_stars, hyperbolic_coords.
 *
 * What Postgres does with a double it is given for a float4 (PGlite 0.5 and Postgres 15 alike,
 * as a text parameter or cast from float8): rounds it to the nearest float4, including the
 * subnormals (1e-40 is stored as 1e-40); refuses with 22003 a nonzero value that rounds to no
 * float4 at all (below ~7e-46: 1e-46, 1e-50, 1e-300) and one above float4's largest (3.5e38);
 * and stores NaN and ±Infinity without a word.
 *
 * So, here:
 * - |x| below float4's smallest normal is written as 0 (flush to zero). 1e-50 is 0 at float4
 *   precision anyway, and a 0..1 input (importance 1e-50 passes the tools' zod range) or a
 *   computed value (a sigmoid of an extreme z-score) must not fail the call or the job for it.
 *   Subnormals go to 0 too: one threshold, and they hold no precision worth keeping.
 * - NaN, ±Infinity and |x| above float4's largest are refused with an error naming the column.
 *   No real column here has a meaning for them: each is a bug upstream, which a silent NaN would
 *   hide while poisoning every ranking that reads it (NaN compares false), and Postgres' own
 *   22003 for the overflow names neither the column nor the cause. The caller's transaction
 *   rolls back; a tool call answers INTERNAL with the message in the server log.
 */
export const FLOAT4_MIN_NORMAL = 1.1754943508222875e-38;
export const FLOAT4_MAX = 3.4028234663852886e38;

export function asReal(x: number, column: string): number {
  if (!Number.isFinite(x) || Math.abs(x) > FLOAT4_MAX)
    throw new StoreError('DB_ERROR', `${column}: ${x} is not a float4 value (a finite number, |x| ≤ 3.4e38); nothing was written`);
  return Math.abs(x) < FLOAT4_MIN_NORMAL ? 0 : x;
}

/** `asReal` over a `real[]` column's values (a Float32Array too). */
export function realArray(xs: ArrayLike<number>, column: string): number[] {
  return Array.from(xs, (x) => asReal(x, column));
}
