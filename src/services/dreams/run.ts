import type { Db, Queryable } from '../../store/db.js';
import { dreamAbortRequested } from '../../store/dreams-repo.js';

/** What bounds one phase of a dream: operations (lookups and writes) and wall time. */
export interface DreamBudget {
  max_operations: number;
  max_ms: number;
}

/** A dream asked to stop (abort_dream, or its job cancelled): the phase in progress rolls back. */
export class DreamAborted extends Error {
  override name = 'DreamAborted';
}

/** How often the abort flag in the dreams table is read: a worker elsewhere hears abort_dream through it. */
const ABORT_POLL_MS = 200;

/**
 * One phase's bookkeeping: the budget it spends and the checkpoints where it may stop. A phase
 * plans by reading, checking in between steps, then writes everything in one transaction, so an
 * abort leaves either the whole phase or nothing of it.
 */
export class PhaseRun {
  operations = 0;
  stoppedByBudget = false;
  private readonly started = Date.now();
  private lastPoll = 0;

  constructor(private readonly deps: { db: Db; dreamId: string; signal: AbortSignal; budget: DreamBudget }) {}

  /** Counts `n` operations; false (and stoppedByBudget) once the phase has used its budget. */
  spend(n = 1): boolean {
    if (this.exhausted()) return false;
    this.operations += n;
    return true;
  }

  exhausted(): boolean {
    const over = this.operations >= this.deps.budget.max_operations || Date.now() - this.started >= this.deps.budget.max_ms;
    if (over) this.stoppedByBudget = true;
    return over;
  }

  /** Operations left before the budget stops the phase. */
  remaining(): number {
    return Math.max(0, this.deps.budget.max_operations - this.operations);
  }

  elapsedMs(): number {
    return Date.now() - this.started;
  }

  /**
   * Throws DreamAborted when the job was cancelled or abort_dream flagged the run. Inside the
   * phase's transaction pass its handle: PGlite has one connection, which the transaction holds.
   */
  async checkpoint(q: Queryable = this.deps.db): Promise<void> {
    if (this.deps.signal.aborted) throw new DreamAborted(`dream ${this.deps.dreamId} was aborted`);
    if (Date.now() - this.lastPoll < ABORT_POLL_MS) return;
    this.lastPoll = Date.now();
    if (await dreamAbortRequested(q, this.deps.dreamId)) throw new DreamAborted(`dream ${this.deps.dreamId} was aborted`);
  }
}
