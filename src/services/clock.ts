/**
 * The time services compare stored instants against (recovery windows). Injected by the
 * composition root, so tests can move it instead of waiting 30 days.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock `offsetMs` ahead of the system clock (tests of windows that expire). */
export function offsetClock(offsetMs: number): Clock {
  return { now: () => new Date(Date.now() + offsetMs) };
}
