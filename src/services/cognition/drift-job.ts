import { z } from 'zod';
import { defineJob, type JobHandlerContext } from '../../jobs/define.js';
import type { Db } from '../../store/db.js';
import { lockNodesById } from '../../store/nodes-repo.js';
import { activeNorthStar, recordRun, setImportance } from '../../store/workspace-repo.js';
import { curate } from '../curation.js';
import { image } from '../writes.js';
import { clamp01, round4 } from './math.js';
import { alignments, measureDrift } from './north-star.js';

/** Importance changes smaller than this are not written (noise, and a smaller undo). */
const MIN_CHANGE = 0.005;
const BATCH = 200;

const progress = z.object({ phase: z.enum(['measure', 'write']), done: z.number().int().nonnegative(), total: z.number().int().nonnegative() });

export const driftCorrectionResult = z.object({
  status: z.enum(['corrected', 'no_north_star', 'nothing_to_change']),
  changed: z.number().int(),
  raised: z.number().int(),
  lowered: z.number().int(),
  tx_id: z.number().int().nullable(),
  reversal_hash: z.string().nullable(),
  mean_alignment: z.number().nullable(),
  weighted_alignment_before: z.number().nullable(),
  weighted_alignment_after: z.number().nullable(),
  reason: z.string(),
});

/**
 * The `drift-correction` job: moves each memory's importance by its alignment to the north star
 * (z-score × strength / 2, within ±strength), so the store's attention (the workspace, the ego's
 * purpose vector, the next bootstrap's dominant cluster) turns back to the goal. One logged
 * transaction whose rationale names the reason: `undo` reverts all of it.
 */
export const driftCorrectionJob = defineJob({
  type: 'drift-correction',
  payload: z.object({
    project_id: z.string().min(1),
    strength: z.number().min(0.01).max(0.5),
    actor: z.string().nullable(),
    rationale: z.string().nullable(),
    trigger: z.enum(['tool', 'schedule']),
  }),
  progress,
  result: driftCorrectionResult,
  attempts: 1,
  async handler(p, { deps, report, jobId, signal }: JobHandlerContext<z.input<typeof progress>, { db: Db }>) {
    const { db } = deps;
    const star = await activeNorthStar(db, p.project_id);
    const empty = { changed: 0, raised: 0, lowered: 0, tx_id: null, reversal_hash: null, weighted_alignment_after: null };
    if (!star)
      return { ...empty, status: 'no_north_star' as const, mean_alignment: null, weighted_alignment_before: null, reason: 'no north star: run auto_bootstrap_north_star first' };
    const drift = await measureDrift(db, p.project_id);
    const rows = await alignments(db, star);
    await report({ phase: 'measure', done: rows.length, total: rows.length });
    const n = rows.length;
    const mean = n ? rows.reduce((s, r) => s + r.alignment, 0) / n : 0;
    const sd = n ? Math.sqrt(rows.reduce((s, r) => s + (r.alignment - mean) ** 2, 0) / n) : 0;
    const plan = rows.flatMap((r) => {
      const z = sd > 1e-9 ? (r.alignment - mean) / sd : 0;
      const delta = Math.max(-p.strength, Math.min(p.strength, (z * p.strength) / 2));
      const importance = clamp01(r.importance + delta);
      return Math.abs(importance - r.importance) >= MIN_CHANGE ? [{ id: r.id, importance }] : [];
    });
    const reason =
      p.rationale ??
      `drift correction toward north star ${star.node_id} ("${star.label.slice(0, 80)}"): alignment EWMA ${drift?.ewma ?? '?'} vs baseline ${round4(star.baseline)} (${drift?.level ?? '?'}); importance moved by alignment z-score × ${p.strength}/2 (${p.trigger})`;
    const weighted = (imp: (r: (typeof rows)[number]) => number) => {
      const w = rows.reduce((s, r) => s + imp(r), 0);
      return w > 0 ? round4(rows.reduce((s, r) => s + imp(r) * r.alignment, 0) / w) : null;
    };
    const before = weighted((r) => r.importance);
    if (plan.length === 0) {
      await recordRun(db, { service: 'drift_correction', projectId: p.project_id, jobId, trigger: p.trigger, result: { status: 'nothing_to_change', changed: 0 } });
      return { ...empty, status: 'nothing_to_change' as const, mean_alignment: round4(mean), weighted_alignment_before: before, reason };
    }
    const planned = new Map(plan.map((x) => [x.id, x.importance]));
    let raised = 0;
    const committed = await curate(db, 'drift_correction', { actor: p.actor, rationale: reason, reason: 'drift_correction' }, async (tx, log) => {
      for (let i = 0; i < plan.length; i += BATCH) {
        if (signal.aborted) throw new Error('drift correction cancelled');
        const ids = plan.slice(i, i + BATCH).map((x) => x.id);
        const olds = (await lockNodesById(tx, ids)).filter((n) => n.deleted_at === null);
        // One statement per batch (one update per row cost ~20 ms each on PGlite).
        const rows = new Map(
          (
            await setImportance(
              tx,
              olds.map((o) => ({ id: o.id, importance: planned.get(o.id)! })),
            )
          ).map((r) => [r.id, r]),
        );
        for (const old of olds) {
          if (planned.get(old.id)! > old.importance) raised++;
          log({ entity: 'node', entityId: old.id, before: image(old), after: image(rows.get(old.id)!) });
        }
        await report({ phase: 'write', done: Math.min(plan.length, i + BATCH), total: plan.length });
      }
      return { nodeIds: plan.map((x) => x.id), result: null };
    });
    const after = weighted((r) => planned.get(r.id) ?? r.importance);
    const result = {
      status: 'corrected' as const,
      changed: plan.length,
      raised,
      lowered: plan.length - raised,
      tx_id: committed.txId,
      reversal_hash: committed.reversalHash,
      mean_alignment: round4(mean),
      weighted_alignment_before: before,
      weighted_alignment_after: after,
      reason,
    };
    await recordRun(db, { service: 'drift_correction', projectId: p.project_id, jobId, trigger: p.trigger, result: { ...result } });
    return result;
  },
});
