import { z } from 'zod';
import { defineJob, enqueueJob, type JobHandlerContext } from '../../jobs/define.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Db } from '../../store/db.js';
import { liveHierarchyOfProject } from '../../store/edges-repo.js';
import { hierarchyStamp, nidsOfIds, replaceCoords, vectorsOf } from '../../store/navigation-repo.js';
import { coneEnergy, fitEntailmentCones, transitiveClosure, type Point } from './poincare.js';

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
  result: z.object({ points: z.number().int(), pairs: z.number().int(), unentailed_pairs: z.number().int(), stamp: z.string() }),
  attempts: 2,
  async handler({ project_id, space }, { deps, report, jobId }: JobHandlerContext<z.input<typeof fitProgress>, { db: Db }>) {
    const stamp = await hierarchyStamp(deps.db, project_id);
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
    let last = 0;
    const points = await fitEntailmentCones(pairs, {
      dim: BALL_DIM,
      seed: SEED,
      init,
      onEpoch: async (epoch, epochs) => {
        if (epoch - last >= 20 || epoch === epochs) {
          last = epoch;
          await report({ epoch, epochs });
        }
      },
    });
    const closure = transitiveClosure(pairs);
    const unentailed = closure.filter(([c, a]) => coneEnergy(points.get(a)!, points.get(c)!) > 0).length;
    await deps.db.transaction((tx) =>
      replaceCoords(
        tx,
        project_id,
        space,
        stamp,
        jobId,
        [...points].map(([nodeId, coords]) => ({ nodeId, coords })),
      ),
    );
    return { points: points.size, pairs: closure.length, unentailed_pairs: unentailed, stamp };
  },
});

/** The job id of a fit: one per project, space and hierarchy state, so a burst of changes fits once per state. */
export function fitJobId(projectId: string, space: string, stamp: string): string {
  return `hyperbolic-${Buffer.from(projectId).toString('hex')}-${space}-${stamp}`;
}

/** Enqueues a refit of the project's hierarchy in a space (E1 unless said) after it changed. */
export async function enqueueHierarchyFit(deps: { db: Db; queue: JobQueue }, projectId: string, space: HyperbolicSpace = 'E1'): Promise<string> {
  const stamp = await hierarchyStamp(deps.db, projectId);
  return (await enqueueJob(deps.queue, hyperbolicFitJob, { project_id: projectId, space }, { jobId: fitJobId(projectId, space, stamp) })).id;
}
