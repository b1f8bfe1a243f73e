import { enqueueJob } from '../../jobs/define.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Logger } from '../../log.js';
import type { Db, Queryable } from '../../store/db.js';
import { notify } from '../../store/locks.js';
import { insertAdjustments, insertOutcomes, readState, retrievalShowing, type NewOutcome, type OutcomeKind } from '../../store/signals-repo.js';
import { SIGNAL_WEIGHTS, type RetrievalDynamics } from '../search.js';
import { syncedWeights } from './kuramoto.js';
import { levelsOf, rawLevel, readAnchor, type ModulatorAnchor } from './levels.js';
import { MAX_ADJUST, mmrLambda, weightSpread, type Modulator } from './neuromodulation.js';
import { calibrationReport, kuramotoReport, neuromodulationReport, steeringReport, thresholdReport } from './reports.js';
import { CALIBRATION_KEY, INITIAL_CALIBRATION, type CalibrationState } from './recalibration.js';
import { logCreated, type Log } from './undo.js';
import { writeTransaction } from '../writes.js';
import { factorsOf, INITIAL_KURAMOTO, KURAMOTO_KEY, kuramotoSyncJob, SIGNALS_CHANNEL, type KuramotoState } from './sync-job.js';

/** The caller's recent retrievals searched for the one that showed a memory given feedback. */
const FEEDBACK_LOOKBACK = 200;

export interface RecordedOutcome {
  node_id: string;
  outcome: OutcomeKind;
  retrieval_id: number | null;
  score: number | null;
  rank: number | null;
}

/**
 * The learning signals' front: a cache of what search needs on its hot path (sync-weighted
 * fusion weights, the noradrenaline anchor for MMR λ, the calibrated score threshold), reloaded
 * when any process announces a change on SIGNALS_CHANNEL, never read per query; and the writes
 * that feed and steer the signals (feedback, outcomes, manual adjustments).
 */
export class SignalsService implements RetrievalDynamics {
  private factors: Record<string, number> = {};
  private anchor: ModulatorAnchor = { ref: 0, excess: { dopamine: 0, serotonin: 0, noradrenaline: 0, acetylcholine: 0 } };
  private threshold = INITIAL_CALIBRATION.score_threshold;
  private unlisten: (() => Promise<void>) | null = null;
  private sinceSync = 0;
  private reloading: Promise<void> | null = null;
  private reloadAgain = false;
  private started = 0;
  private applied = 0;

  constructor(private readonly deps: { db: Db; queue: JobQueue; logger: Logger; syncEvery: number }) {}

  async start(): Promise<void> {
    await this.reload();
    this.unlisten = await this.deps.db.listen(SIGNALS_CHANNEL, () => void this.reloadSoon());
  }

  async stop(): Promise<void> {
    await this.unlisten?.();
    this.unlisten = null;
    await this.reloading;
  }

  /** Reads the state documents and the modulator impulses once; the hot path reads only what this sets. */
  async reload(): Promise<void> {
    // Reloads may overlap (an announcement's and a refresh): the one started last read the newest state.
    const seq = ++this.started;
    const now = Date.now();
    const kuramoto = (await readState<KuramotoState>(this.deps.db, KURAMOTO_KEY)) ?? INITIAL_KURAMOTO;
    const calibration = (await readState<CalibrationState>(this.deps.db, CALIBRATION_KEY)) ?? INITIAL_CALIBRATION;
    const anchor = await readAnchor(this.deps.db, now);
    if (seq < this.applied) return;
    this.applied = seq;
    this.anchor = anchor;
    this.factors = factorsOf(kuramoto);
    this.threshold = calibration.score_threshold;
  }

  /** Coalesces a burst of announcements into at most one reload in flight and one after it. */
  private reloadSoon(): Promise<void> {
    if (this.reloading) {
      this.reloadAgain = true;
      return this.reloading;
    }
    this.reloading = this.reload()
      .catch((err) => this.deps.logger.warn({ err }, 'signals not reloaded'))
      .finally(() => {
        this.reloading = null;
        if (this.reloadAgain) {
          this.reloadAgain = false;
          void this.reloadSoon();
        }
      });
    return this.reloading;
  }

  // Hot path: no I/O.

  fusionWeights(now: number): Readonly<Record<string, number>> {
    return syncedWeights(SIGNAL_WEIGHTS, this.factors, weightSpread(levelsOf(this.anchor, now).serotonin));
  }

  diversity(now: number): number {
    return mmrLambda(levelsOf(this.anchor, now).noradrenaline);
  }

  /** The `search` default score threshold (calibrated by trigger_recalibration). */
  scoreThreshold(): number {
    return this.threshold;
  }

  levels(now: number): Record<Modulator, number> {
    return levelsOf(this.anchor, now);
  }

  /** Called after each logged retrieval: every `syncEvery` of them this process schedules a sync step. */
  noteRetrieval(): void {
    if (this.deps.syncEvery <= 0 || ++this.sinceSync < this.deps.syncEvery) return;
    this.sinceSync = 0;
    // One shared job id: a burst of retrievals queues one step while it waits.
    enqueueJob(this.deps.queue, kuramotoSyncJob, { actor: 'auto' }, { jobId: 'kuramoto-sync' }).catch((err) => this.deps.logger.warn({ err }, 'sync step not scheduled'));
  }

  // Writes.

  /** Records an outcome for each memory, linked to the caller's retrieval that showed it. */
  async recordOutcomes(
    caller: { session: string | null; actor: string },
    nodes: ReadonlyArray<{ id: string; nid: number }>,
    outcome: OutcomeKind,
    retrievalId: number | null = null,
  ): Promise<RecordedOutcome[]> {
    // Feedback is a logged transaction (undo takes its impulses and observations back); a hydrated
    // citation is evidence of use from a read, recorded like the retrieval log, outside it.
    const logged = outcome !== 'hydrated';
    const run = async (tx: Queryable, log: Log) => {
      const rows: NewOutcome[] = [];
      for (const node of nodes) {
        const shown = await retrievalShowing(tx, { nodeId: node.id, sessionId: caller.session, actor: caller.actor, retrievalId, recent: FEEDBACK_LOOKBACK });
        rows.push({
          retrievalId: shown?.retrieval_id ?? null,
          nid: node.nid,
          nodeId: node.id,
          outcome,
          score: shown?.score ?? null,
          rank: shown?.rank ?? null,
          sessionId: caller.session,
          actor: caller.actor,
        });
      }
      logCreated(log, 'outcome', await insertOutcomes(tx, rows));
      await notify(tx, SIGNALS_CHANNEL, 'outcomes');
      return rows.map((r) => ({ node_id: r.nodeId, outcome: r.outcome, retrieval_id: r.retrievalId, score: r.score, rank: r.rank }));
    };
    const rationale = `${outcome} feedback on ${nodes.length} ${nodes.length === 1 ? 'memory' : 'memories'}`;
    const out = logged
      ? (await writeTransaction(this.deps.db, 'record_feedback', { actor: caller.actor, rationale }, run)).result
      : await this.deps.db.transaction((tx) => run(tx, () => undefined));
    await this.refresh();
    return out;
  }

  /** Moves a modulator by `delta` (bounded to ±MAX_ADJUST, the level to [0, 1]); logged with before and after. */
  async adjustModulator(modulator: Modulator, delta: number, who: { actor: string; rationale: string | null }): Promise<{ before: number; after: number }> {
    if (Math.abs(delta) > MAX_ADJUST) throw new RangeError(`delta must be within ±${MAX_ADJUST}`);
    const now = Date.now();
    const { result } = await writeTransaction(this.deps.db, 'adjust_neuromodulator', { actor: who.actor, rationale: who.rationale }, async (tx, log) => {
      const anchor = await readAnchor(tx, now);
      const before = levelsOf(anchor, now)[modulator];
      const after = Math.min(1, Math.max(0, before + delta));
      // The impulse takes the unclamped level (outcomes may have pushed it past a bound) to `after`.
      const impulse = after - rawLevel(anchor, modulator, now);
      const rows = await insertAdjustments(tx, [
        { subsystem: 'neuromodulation', target: modulator, before, after, impulse, source: 'manual', actor: who.actor, rationale: who.rationale },
      ]);
      logCreated(log, 'adjustment', rows);
      await notify(tx, SIGNALS_CHANNEL, 'neuromodulation');
      return { before, after };
    });
    await this.refresh();
    return result;
  }

  // Reads for the tools (from the store, not the cache: they show what every process sees).

  kuramoto() {
    return kuramotoReport(this.deps.db, Date.now());
  }

  /**
   * The order parameter of the spaces' phases (the workspace's SyncSource). Sync state is global,
   * so every project reads the same r; null before any space has a phase.
   */
  async orderParameter(_projectId: string): Promise<{ r: number; psi: number } | null> {
    const report = await this.kuramoto();
    return report.r === null || report.psi === null ? null : { r: report.r, psi: report.psi };
  }

  neuromodulation(only?: Modulator) {
    return neuromodulationReport(this.deps.db, Date.now(), only);
  }

  thresholds() {
    return thresholdReport(this.deps.db);
  }

  calibration() {
    return calibrationReport(this.deps.db);
  }

  steering(limit: number) {
    return steeringReport(this.deps.db, Date.now(), limit);
  }

  /**
   * After a change this process made (a job, an undo): the announcement may arrive later, and a
   * reload already in flight may have read the state before the change, so this one reads it anew.
   */
  refresh(): Promise<void> {
    return this.reload();
  }
}
