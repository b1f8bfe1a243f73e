import { z } from 'zod';
import { defineJob, enqueueJob, type JobHandlerContext } from '../../jobs/define.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Db } from '../../store/db.js';
import { liveHierarchyOfProject } from '../../store/edges-repo.js';
import { coordsCount, fitOf, hierarchyStamp, nidsOfIds, replaceCoords, vectorsOf } from '../../store/navigation-repo.js';
import type { Embedder } from '../../embed/embedder.js';
import { FIT_EPOCHS, fitAndCheck, type Point } from '../../utl/poincare.js';

/** The spaces entailment_query may read coordinates seeded from (seed 001 §3.3). */
export const HYPERBOLIC_SPACES = ['E1', 'E5', 'E7'] as const;
export type HyperbolicSpace = (typeof HYPERBOLIC_SPACES)[number];
/** Dimension of the ball; Ganea et al. report good entailment from 2 to 10. */
export const BALL_DIM = 5;
/** Most Hierarchical edges one fit reads. */
const MAX_EDGES = 50_000;
const SEED = 1;

const fitProgress = z.object({ epoch: z.number().int().nonnegative(), epochs: z.number().int().nonnegative() });

/** A fixed Gaussian projection of a space's vector to the ball's dimension: the start direction of a node. */
function projectDirection(v: Float32Array, dim: number): Point {
  const out = new Array<number>(dim).fill(0);
  let s = 0x9e3779b9;
  const gauss = () => {
    // xorshift then Box-Muller: the same matrix in every process.
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    const u = ((s >>> 0) + 1) / 4294967297;
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    const w = ((s >>> 0) + 1) / 4294967297;
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * w);
  };
  for (let i = 0; i < v.length; i++) for (let j = 0; j < dim; j++) out[j]! += v[i]! * gauss();
  return out;
}

/**
 * The `hyperbolic-fit` job: fits entailment cones to a project's live Hierarchical edges and
 * replaces its stored coordinates for one space. Start directions come from the nodes' vectors
 * in that space (randomly projected), so the space chooses which siblings start close.
 * Idempotent: the same hierarchy fits to the same coordinates (fixed seed).
 */
export const hyperbolicFitJob = defineJob({
  type: 'hyperbolic-fit',
  payload: z.object({ project_id: z.string().min(1), space: z.enum(HYPERBOLIC_SPACES) }),
  progress: fitProgress,
  result: z.object({
    points: z.number().int(),
    /** Absent when the stored fit was already of this hierarchy (`already_fitted`). */
    pairs: z.number().int().optional(),
    unentailed_pairs: z.number().int().optional(),
    stamp: z.string(),
    already_fitted: z.boolean().optional(),
  }),
  attempts: 2,
  async handler({ project_id, space }, { deps, report, jobId }: JobHandlerContext<z.input<typeof fitProgress>, { db: Db; embedder?: Pick<Embedder, 'fitCones'> }>) {
    const stamp = await hierarchyStamp(deps.db, project_id);
    // A burst of changes queues a fit per state; the first to run fits the newest, the rest find it done.
    const stored = await fitOf(deps.db, project_id, space);
    if (stored?.hierarchy_sig === stamp) return { points: await coordsCount(deps.db, project_id, space), stamp, already_fitted: true };
    const edges = await liveHierarchyOfProject(deps.db, project_id, MAX_EDGES);
    const pairs = edges.map((e) => [e.src, e.dst] as const);
    const ids = [...new Set(pairs.flat())];
    const nids = await nidsOfIds(deps.db, ids);
    const vectors = await vectorsOf(deps.db, space, [...nids.values()]);
    const init = new Map<string, Point>();
    for (const id of ids) {
      const v = vectors.get(nids.get(id) ?? -1);
      if (v) init.set(id, projectDirection(v, BALL_DIM));
    }
    const input = { pairs, dim: BALL_DIM, seed: SEED, init: [...init] };
    // Seconds of arithmetic for a project of thousands of memories: on the math thread when this
    // process has one (it reports no epochs from there), else here between epoch reports.
    await report({ epoch: 0, epochs: FIT_EPOCHS });
    let last = 0;
    const fit = deps.embedder
      ? await deps.embedder.fitCones(input)
      : await fitAndCheck(input, async (epoch, epochs) => {
          if (epoch - last >= 20 || epoch === epochs) {
            last = epoch;
            await report({ epoch, epochs });
          }
        });
    await report({ epoch: FIT_EPOCHS, epochs: FIT_EPOCHS });
    await deps.db.transaction((tx) =>
      replaceCoords(
        tx,
        project_id,
        space,
        stamp,
        jobId,
        fit.points.map(([nodeId, coords]) => ({ nodeId, coords })),
      ),
    );
    return { points: fit.points.length, pairs: fit.closurePairs, unentailed_pairs: fit.unentailedPairs, stamp };
  },
});

/** The job id of a fit: one per project, space and hierarchy state, so a burst of changes fits once per state. */
export function fitJobId(projectId: string, space: string, stamp: string): string {
  return `hyperbolic-${Buffer.from(projectId).toString('hex')}-${space}-${stamp}`;
}

/**
 * Enqueues a refit of the project's hierarchy in a space (E1 unless said) after it changed. In
 * the background lane: an import's link jobs (background too, and queued first) all run before
 * it, so the import is fitted once, not once per link job with the whole project each time.
 */
export async function enqueueHierarchyFit(deps: { db: Db; queue: JobQueue }, projectId: string, space: HyperbolicSpace = 'E1'): Promise<string> {
  const stamp = await hierarchyStamp(deps.db, projectId);
  return (await enqueueJob(deps.queue, hyperbolicFitJob, { project_id: projectId, space }, { jobId: fitJobId(projectId, space, stamp), background: true })).id;
}
