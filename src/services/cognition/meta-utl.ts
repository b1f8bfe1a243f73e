import type { Db } from '../../store/db.js';
import { learningObservations, metaLog } from '../../store/meta-utl-repo.js';
import { round4, pearson, spearman } from './math.js';
import { lambdaInEffect, lambdaRecalibrationJob, OBSERVATIONS, retrievals } from './meta-utl-job.js';

/**
 * Meta-UTL: how well UTL's L (computed when a memory was written) predicted how often it was
 * retrieved afterwards, the λ in effect, and the log of recalibrations.
 */
export class MetaUtlService {
  constructor(private readonly deps: { db: Db }) {}

  async status(projectId: string) {
    const obs = await learningObservations(this.deps.db, projectId, OBSERVATIONS);
    const lambda = await lambdaInEffect(this.deps.db, projectId);
    const xs = obs.map((o) => o.learning);
    const ys = obs.map(retrievals);
    const rho = spearman(xs, ys);
    const r = pearson(
      xs,
      ys.map((y) => Math.log1p(y)),
    );
    // Mean retrievals of the quarter of memories L rated highest vs the quarter it rated lowest.
    const sorted = [...obs].sort((a, b) => b.learning - a.learning);
    const q = Math.floor(sorted.length / 4);
    const mean = (list: typeof obs) => (list.length ? round4(list.reduce((s, o) => s + retrievals(o), 0) / list.length) : null);
    const [last] = await metaLog(this.deps.db, projectId, 1, null);
    return {
      project_id: projectId,
      observations: obs.length,
      retrievals: ys.reduce((s, y) => s + y, 0),
      spearman: rho === null ? null : round4(rho),
      pearson_log: r === null ? null : round4(r),
      /** (ρ + 1) / 2: 1 = L ranked memories exactly as they were later retrieved, 0.5 = no better than chance. */
      prediction_accuracy: rho === null ? null : round4((rho + 1) / 2),
      reason: rho === null ? (obs.length < 3 ? 'fewer than 3 fingerprinted memories' : 'L or retrievals do not vary yet') : null,
      top_quartile_retrievals: q > 0 ? mean(sorted.slice(0, q)) : null,
      bottom_quartile_retrievals: q > 0 ? mean(sorted.slice(-q)) : null,
      lambda,
      last_recalibration: last ? { at: last.created_at.toISOString(), details: last.details } : null,
    };
  }

  async log(projectId: string | null, limit: number, beforeId: number | null) {
    const rows = await metaLog(this.deps.db, projectId, limit + 1, beforeId);
    const page = rows.slice(0, limit);
    return {
      entries: page.map((r) => ({ id: r.id, project_id: r.project_id, event: r.event, at: r.created_at.toISOString(), details: r.details })),
      next_before_id: rows.length > limit ? page[page.length - 1]!.id : null,
    };
  }

  /** Job and payload of a λ refit (trigger_lambda_recalibration runs it). */
  recalibration(projectId: string, actor: string | null = null) {
    return { job: lambdaRecalibrationJob, payload: { project_id: projectId, trigger: 'tool' as const, actor } };
  }
}
