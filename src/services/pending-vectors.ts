/**
 * Writes that answered before their vectors reached this process's indexes (embedded `store`).
 * A store is acknowledged once its rows are committed; encoding its 13 spaces and inserting them
 * into the indexes follows on the job queue. Reads in this process wait for what is in flight
 * (`settled`), so a search that starts after a store answered still finds it by every signal,
 * while a burst of stores no longer waits for each other's vectors.
 */
export class PendingVectors {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly wakers: Array<() => void> = [];

  /** `wake` runs whenever a reader waits: a writer holding vectors back to batch them sends them at once. */
  onAwaited(wake: () => void): void {
    this.wakers.push(wake);
  }

  /**
   * Tracks a write's vectors until `done` settles (fulfilled or not: a job that fails or runs
   * past the wait leaves the write to the outbox, as a store that waited would). Answers the
   * settled promise.
   */
  track(done: Promise<unknown>): Promise<void> {
    const settled = done.then(
      () => undefined,
      () => undefined,
    );
    this.inFlight.add(settled);
    void settled.then(() => this.inFlight.delete(settled));
    return settled;
  }

  /**
   * Resolves once every write in flight now has its vectors in the indexes (or gave up waiting);
   * null when none is, so the hot path awaits nothing.
   */
  settled(): Promise<void> | null {
    if (this.inFlight.size === 0) return null;
    for (const wake of this.wakers) wake();
    return Promise.all(this.inFlight).then(() => undefined);
  }

  /** Writes whose vectors are still on their way. */
  get size(): number {
    return this.inFlight.size;
  }
}
