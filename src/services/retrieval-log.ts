import type { Logger } from '../log.js';
import type { Db } from '../store/db.js';
import { insertRetrieval, pruneRetrievals, recentRetrievals, type LoggedRetrieval } from '../store/retrieval-log-repo.js';
import { BackgroundWrites } from './background-writes.js';
import { sessionKey } from './navigation/navigation.js';
import type { HybridResult } from './search.js';

export type { LoggedHit, LoggedRetrieval } from '../store/retrieval-log-repo.js';

/** Rows the log keeps; older ones are pruned every PRUNE_EVERY records. */
export const RETRIEVAL_LOG_KEEP = 20_000;
const PRUNE_EVERY = 500;

/**
 * What user-facing retrievals returned (db/075): the evidence the learning signals read —
 * memories retrieved together (dreams), each space's agreement with the fused ranking (Kuramoto
 * sync), outcomes of what was shown (neuromodulation, calibration). A failure to record is
 * logged and never fails the retrieval it describes.
 */
export class RetrievalLog {
  private sincePrune = 0;
  private readonly writes = new BackgroundWrites();

  /** `afterRecord` runs after each logged retrieval (the signals schedule their sync step from it). */
  constructor(private readonly deps: { db: Db; logger?: Logger | undefined; afterRecord?: (() => void) | undefined }) {}

  /**
   * Logs a retrieval once its caller's answer is on its way (the write runs on the next turn of
   * the event loop: on PGlite a statement runs on this thread, so written at once it would hold
   * the answer back). Tool calls that read the log or the accesses wait for it (`settled`,
   * invoke.ts). A failure to write is logged and never fails the retrieval.
   */
  record(
    caller: { session: string | null; actor: string },
    entry: {
      tool: string;
      query: string;
      projectId: string | null | undefined;
      result: Pick<HybridResult, 'hits' | 'signalTop'>;
      /** Also record the caller's reads of these nodes (NavigationService.recordAccess), in the same statement. */
      accessed?: ReadonlyArray<{ id: string; project_id: string }>;
    },
  ): void {
    void this.writes.track(new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.write(caller, entry)));
  }

  /** Resolves once every retrieval recorded so far is written; null when none is on its way. */
  settled(): Promise<void> | null {
    return this.writes.settled();
  }

  private async write(caller: Parameters<RetrievalLog['record']>[0], entry: Parameters<RetrievalLog['record']>[1]): Promise<void> {
    try {
      const access = entry.accessed ? { sessionId: sessionKey(caller), nodes: entry.accessed } : undefined;
      await insertRetrieval(
        this.deps.db,
        {
          sessionId: caller.session,
          actor: caller.actor,
          tool: entry.tool,
          projectId: entry.projectId ?? null,
          query: entry.query,
          hits: entry.result.hits.map((h) => ({
            nid: h.node.nid,
            id: h.node.id,
            score: Math.round(h.score * 10_000) / 10_000,
            signals: Object.fromEntries(Object.entries(h.signals).map(([name, s]) => [name, s.rank])),
          })),
          signalTop: entry.result.signalTop,
        },
        access,
      );
      if (++this.sincePrune >= PRUNE_EVERY) {
        this.sincePrune = 0;
        await pruneRetrievals(this.deps.db, RETRIEVAL_LOG_KEEP);
      }
      this.deps.afterRecord?.();
    } catch (err) {
      this.deps.logger?.warn({ err }, 'retrieval not logged');
    }
  }

  /** Newest first, the retrievals recorded so far included; see recentRetrievals for the filters. */
  async recent(opts: { projectId?: string | null; strictProject?: boolean; sessionId?: string | null; since?: Date | null; limit: number }): Promise<LoggedRetrieval[]> {
    await this.settled();
    return recentRetrievals(this.deps.db, opts);
  }
}
