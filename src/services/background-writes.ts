/**
 * Writes a call answered before finishing (a store's vectors, a retrieval's log row), tracked so
 * that reads which must see them can wait (`settled`), while the answer did not.
 */
export class BackgroundWrites {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly wakers: Array<() => void> = [];

  /** `wake` runs whenever a reader waits: a writer holding work back to batch it sends it at once. */
  onAwaited(wake: () => void): void {
    this.wakers.push(wake);
  }

  /**
   * Tracks a write until `done` settles, fulfilled or not (a failed background write is its
   * writer's to report or recover). Answers the settled promise.
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

  /** Resolves once every write in flight now has settled; null when none is, so the hot path awaits nothing. */
  settled(): Promise<void> | null {
    if (this.inFlight.size === 0) return null;
    for (const wake of this.wakers) wake();
    return Promise.all(this.inFlight).then(() => undefined);
  }

  /** Writes still on their way. */
  get size(): number {
    return this.inFlight.size;
  }
}
