import * as z from 'zod';
import { defineJob, type JobHandlerContext } from '../../jobs/define.js';
import type { Db } from '../../store/db.js';
import { notify } from '../../store/locks.js';
import { insertAdjustments, lockState, retrievalsAfter, writeState, type Adjustment } from '../../store/signals-repo.js';
import { agreementOf, KURAMOTO, nextCoherence, orderParameter, stepPhases, syncFactor } from './kuramoto.js';
import { levelsOf, readAnchor } from './levels.js';
import { syncGain } from './neuromodulation.js';
import { logCreated, logState, stateImage } from './undo.js';
import { writeTransaction } from '../writes.js';

/** Announced after every change of a signal's state, so each front end reloads its cached weights. */
export const SIGNALS_CHANNEL = 'cg_signals';

export interface OscillatorState {
  /** Radians in (−π, π], relative to the fused ranking. */
  phase: number;
  /** Recency-weighted mean agreement with the fused ranking (EWMA, α = AGREEMENT_ALPHA). */
  agreement: number;
  /** Recency-weighted mean of (cos φ, sin φ) over its steps: what its fusion weight follows. */
  coherence: [number, number];
  /** Logged retrievals that moved this oscillator. */
  steps: number;
}

export interface KuramotoState {
  coupling: number;
  /** The last retrieval_log id stepped over: the next step starts after it, so none counts twice. */
  cursor: number;
  steps: number;
  stepped_at: string | null;
  /** Keyed by search signal name (E1, lexical, …): only spaces that have taken part in a retrieval. */
  oscillators: Record<string, OscillatorState>;
}

export const KURAMOTO_KEY = 'kuramoto';
export const INITIAL_KURAMOTO: KuramotoState = { coupling: KURAMOTO.defaultCoupling, cursor: 0, steps: 0, stepped_at: null, oscillators: {} };
const AGREEMENT_ALPHA = 0.1;
/** A weight factor change smaller than this is not logged as an adjustment. */
const LOGGED_CHANGE = 0.01;

export function factorsOf(state: KuramotoState): Record<string, number> {
  return Object.fromEntries(Object.entries(state.oscillators).map(([name, o]) => [name, syncFactor(o.coherence)]));
}

const syncProgress = z.object({ done: z.number().int(), total: z.number().int(), message: z.string() });
const syncResult = z.object({
  retrievals: z.number().int(),
  cursor: z.number().int(),
  coupling: z.number(),
  gain: z.number(),
  r: z.number().nullable(),
  psi: z.number().nullable(),
  changed: z.array(z.object({ signal: z.string(), before: z.number().nullable(), after: z.number() })),
});
export type SyncResult = z.output<typeof syncResult>;

/**
 * One sync step: every retrieval logged since the last step (the newest KURAMOTO.window of them)
 * moves the phases of the spaces it asked, in log order, under one row lock; the cursor moves in
 * the same transaction, so a retried or concurrent step never applies a retrieval twice.
 */
export async function runSyncStep(
  db: Db,
  opts: { now: number; actor: string | null; jobId: string | null; coupling?: { value: number; rationale: string | null } },
): Promise<SyncResult> {
  const op = opts.coupling ? 'adjust_coupling' : 'kuramoto_sync';
  const why = opts.coupling?.rationale ?? (opts.coupling ? `coupling K → ${opts.coupling.value}` : 'sync step over the retrieval log');
  const meta = { actor: opts.actor, rationale: why };
  const { result } = await writeTransaction(db, op, meta, async (tx, log) => {
    const state = await lockState<KuramotoState>(tx, KURAMOTO_KEY, INITIAL_KURAMOTO);
    const stateBefore = await stateImage(tx, KURAMOTO_KEY);
    const adjustments: Adjustment[] = [];
    if (opts.coupling && opts.coupling.value !== state.coupling) {
      adjustments.push({
        subsystem: 'sync',
        target: 'coupling',
        before: state.coupling,
        after: opts.coupling.value,
        source: 'manual',
        actor: opts.actor,
        rationale: opts.coupling.rationale,
      });
      state.coupling = opts.coupling.value;
    }
    const before = factorsOf(state);
    const rows = await retrievalsAfter(tx, state.cursor, KURAMOTO.window);
    const gain = syncGain(levelsOf(await readAnchor(tx, opts.now), opts.now).dopamine);
    const phases = new Map(Object.entries(state.oscillators).map(([name, o]) => [name, o.phase]));
    for (const row of rows) {
      const agreements = new Map<string, number>();
      for (const signal of Object.keys(row.signal_top)) {
        const a = agreementOf(row.hits, row.signal_top, signal);
        if (a !== null) agreements.set(signal, a);
      }
      stepPhases(phases, agreements, state.coupling, gain);
      for (const [signal, a] of agreements) {
        const o = state.oscillators[signal] ?? { phase: 0, agreement: a, coherence: [1, 0] as [number, number], steps: 0 };
        const phase = phases.get(signal)!;
        state.oscillators[signal] = { phase, agreement: o.agreement + AGREEMENT_ALPHA * (a - o.agreement), coherence: nextCoherence(o.coherence, phase), steps: o.steps + 1 };
      }
    }
    if (rows.length > 0) {
      state.cursor = rows[rows.length - 1]!.id;
      state.steps += rows.length;
      state.stepped_at = new Date(opts.now).toISOString();
    }
    if (!opts.coupling)
      meta.rationale = `sync step: ${rows.length} retrievals after #${stateBefore?.value ? (stateBefore.value as KuramotoState).cursor : 0}, gain ${gain.toFixed(2)}`;
    const after = factorsOf(state);
    const changed = Object.entries(after)
      .filter(([signal, f]) => before[signal] === undefined || Math.abs(f - before[signal]) >= LOGGED_CHANGE)
      .map(([signal, f]) => ({ signal, before: before[signal] ?? null, after: f }));
    for (const c of changed) {
      adjustments.push({
        subsystem: 'sync',
        target: `weight:${c.signal}`,
        before: c.before,
        after: c.after,
        source: 'sync_step',
        actor: opts.actor,
        rationale: `${rows.length} retrievals stepped, gain ${gain.toFixed(2)}`,
        jobId: opts.jobId,
      });
    }
    await writeState(tx, KURAMOTO_KEY, state);
    // One logged transaction: undo puts the coupling, phases and cursor back (the retrievals are stepped again later).
    await logState(tx, log, KURAMOTO_KEY, stateBefore);
    logCreated(log, 'adjustment', await insertAdjustments(tx, adjustments));
    await notify(tx, SIGNALS_CHANNEL, KURAMOTO_KEY);
    const order = orderParameter(phases.values());
    return { retrievals: rows.length, cursor: state.cursor, coupling: state.coupling, gain, r: order?.r ?? null, psi: order?.psi ?? null, changed };
  });
  return result;
}

/** The sync step as a job: `adjust_coupling` runs one after changing K, and retrievals schedule one every few. */
export const kuramotoSyncJob = defineJob({
  type: 'kuramoto-sync',
  payload: z.object({
    actor: z.string().nullable().default(null),
    coupling: z.number().min(KURAMOTO.minCoupling).max(KURAMOTO.maxCoupling).optional(),
    rationale: z.string().nullable().default(null),
  }),
  progress: syncProgress,
  result: syncResult,
  async handler(payload, { deps, jobId, report }: JobHandlerContext<z.input<typeof syncProgress>, { db: Db }>) {
    await report({ done: 0, total: 1, message: 'stepping the oscillators over the retrieval log' });
    const r = await runSyncStep(deps.db, {
      now: Date.now(),
      actor: payload.actor,
      jobId,
      ...(payload.coupling !== undefined ? { coupling: { value: payload.coupling, rationale: payload.rationale } } : {}),
    });
    await report({ done: 1, total: 1, message: `${r.retrievals} retrievals stepped` });
    return r;
  },
});
