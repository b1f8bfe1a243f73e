import { z } from 'zod';
import type { Embedder } from '../embed/embedder.js';
import { spaceById, SPACES } from '../embed/spaces/registry.js';
import type { EncoderInfo, SpaceId } from '../embed/types.js';
import { defineJob, type JobHandlerContext } from '../jobs/define.js';
import type { Db } from '../store/db.js';
import {
  edgeCountsByNid,
  liveMemoryCount,
  lockDistanceStats,
  nidsNeedingFingerprint,
  earlierProjectNids,
  upsertFingerprints,
  type FingerprintRow,
  vectorsOfNodes,
  writeDistanceStats,
  type StoredVector,
} from '../store/fingerprints-repo.js';
import { fittedLambda } from '../store/meta-utl-repo.js';
import { nodesByNid } from '../store/nodes-repo.js';
import { addSample, centroid, K_NEAREST, learningMagnitude, spaceSimilarity, spaceUtl, type DistanceStats, type SpaceUtl } from './utl.js';

/**
 * Memories of the project a fingerprint is measured against (its most recent earlier ones).
 * In embedded mode the job shares the event loop and PGlite with the write path: at 1000 a
 * LoCoMo ingest slowed to 0.6 stores/s, so the window stays small.
 */
export const REFERENCE_SIZE = 200;

/** The model ids the fingerprints were computed from: a change of any of them makes them stale. */
export function modelKey(encoders: readonly EncoderInfo[]): string {
  return encoders.map((e) => `${e.space}=${e.modelId}`).join(',');
}

/**
 * UTL weight of each space (τ in the seed's multi-space formula): its fusion weight, so the
 * spaces search trusts are the ones that decide what is new, with every embedded space at
 * least 1/13 of E1's so no space is ignored.
 */
export function utlWeight(space: SpaceId): number {
  return Math.max(spaceById(space).weight, 1 / SPACES.length);
}

const fingerprintProgress = z.object({ done: z.number().int().nonnegative(), total: z.number().int().nonnegative() });

export interface FingerprintJobDeps {
  db: Db;
  embedder: Embedder;
}

/**
 * The `fingerprint` job: per memory and per space, ΔS, ΔC, purpose alignment and Johari quadrant
 * against the project's other memories, then L. Runs after the embed job (which enqueues it),
 * so the write path never waits for it. Idempotent apart from the distance moments, which a
 * redelivery counts twice (a bounded bias of one sample).
 */
export const fingerprintJob = defineJob({
  type: 'fingerprint',
  payload: z.object({ project_id: z.string().min(1) }),
  progress: fingerprintProgress,
  result: z.object({ fingerprinted: z.number().int().nonnegative() }),
  async handler({ project_id: projectId }, { deps, report }: JobHandlerContext<z.input<typeof fingerprintProgress>, FingerprintJobDeps>) {
    const encoders = deps.embedder.encoders();
    const key = modelKey(encoders);
    let done = 0;
    // One job per project drains what is missing, BATCH at a time: a burst of writes queues one
    // job (the id dedupes while it waits), and the reference vectors are read once per batch.
    for (;;) {
      const nids = await nidsNeedingFingerprint(deps.db, projectId, key, BATCH);
      if (nids.length === 0) break;
      done += await fingerprintBatch(deps.db, encoders, key, projectId, nids);
      await report({ done, total: done });
      if (nids.length < BATCH) break;
    }
    return { fingerprinted: done };
  },
});

const BATCH = 100;

async function fingerprintBatch(db: Db, encoders: readonly EncoderInfo[], key: string, projectId: string, nids: readonly number[]): Promise<number> {
  const nodes = (await nodesByNid(db, nids)).filter((n) => n.deleted_at === null).sort((a, b) => a.nid - b.nid);
  if (nodes.length === 0) return 0;
  const memories = await liveMemoryCount(db, projectId);
  const fitted = await fittedLambda(db, projectId);
  const edges = await edgeCountsByNid(
    db,
    nodes.map((n) => n.nid),
  );
  // The window before the batch, then the batch itself: each memory sees only those written before it.
  const before = await cachedVectors(db, projectId, await earlierProjectNids(db, { projectId, beforeNid: nodes[0]!.nid, limit: REFERENCE_SIZE }));
  const own = await cachedVectors(
    db,
    projectId,
    nodes.map((n) => n.nid),
  );
  // Per space, the vectors in nid order and where each nid sits among them.
  const modelOf = new Map(encoders.map((e) => [e.space as string, e.modelId]));
  const bySpace = new Map<string, StoredVector[]>();
  for (const v of [...before, ...own].sort((a, b) => a.nid - b.nid)) {
    if (modelOf.get(v.space) !== v.model_id) continue;
    const list = bySpace.get(v.space);
    if (list) list.push(v);
    else bySpace.set(v.space, [v]);
  }
  const positionIn = new Map([...bySpace].map(([space, list]) => [space, new Map(list.map((v, i) => [v.nid, i]))]));
  await db.transaction(async (tx) => {
    const stats = await lockDistanceStats(
      tx,
      projectId,
      encoders.map((e) => e.space),
    );
    const rows: Array<Omit<FingerprintRow, 'computed_at'>> = [];
    for (const node of nodes) {
      const perSpace: Array<SpaceUtl & { space: SpaceId }> = [];
      for (const enc of encoders) {
        const all = bySpace.get(enc.space) ?? [];
        const at = positionIn.get(enc.space)?.get(node.nid) ?? -1;
        if (at < 0) continue;
        const x = all[at]!.vector;
        const refs = all.slice(Math.max(0, at - REFERENCE_SIZE), at).map((r) => r.vector);
        const s0 = stats.get(enc.space) ?? { space: enc.space, n: 0, mean: 0, m2: 0 };
        const utl = measureSpace({ sparse: enc.dim === 0, vector: x, references: refs, edges: edges.get(node.nid) ?? 0, stats: s0 });
        if (refs.length > 0) stats.set(enc.space, { space: enc.space, ...addSample(s0, utl.knnDistance) });
        perSpace.push({ ...utl, space: enc.space });
      }
      const { learning, stage } = learningMagnitude(
        perSpace.map((s) => ({ surprise: s.surprise, coherence: s.coherence, weight: utlWeight(s.space) })),
        memories,
        fitted ? { lambdaS: fitted.lambda_s, lambdaC: fitted.lambda_c } : null,
      );
      rows.push({
        node_nid: node.nid,
        project_id: projectId,
        model_key: key,
        spaces: perSpace.map((s) => s.space),
        purpose: perSpace.map((s) => s.purpose),
        surprise: perSpace.map((s) => s.surprise),
        coherence: perSpace.map((s) => s.coherence),
        johari: perSpace.map((s) => s.quadrant),
        learning,
        stage,
      });
    }
    // One statement for the batch: a statement per memory cost more than the rest of the job.
    await upsertFingerprints(tx, rows);
    await writeDistanceStats(tx, projectId, [...stats.values()]);
  });
  return nodes.length;
}

/**
 * One space of one memory's fingerprint: its cosines to the reference vectors, their centroid and
 * its nearest neighbours' agreement, fed to UTL's spaceUtl. The fingerprint job and
 * gwt_compute_delta_sc (ΔS/ΔC of a node or text against another) both measure with this, so
 * there is one formula.
 */
export function measureSpace(input: { sparse: boolean; vector: Float32Array; references: readonly Float32Array[]; edges: number; stats: DistanceStats }): SpaceUtl {
  const { sparse, vector: x, references: refs } = input;
  const sims = refs.map((r) => spaceSimilarity(sparse, x, r));
  const c = sparse ? null : centroid(refs);
  const centroidCos = c ? spaceSimilarity(false, x, c) : sims.length ? sims.reduce((s, v) => s + v, 0) / sims.length : 0;
  const near = sims
    .map((s, i) => ({ s, i }))
    .sort((a, b) => b.s - a.s)
    .slice(0, K_NEAREST)
    .map((h) => refs[h.i]!);
  return spaceUtl({ sims, centroidCos, neighbourConsistency: meanPairwise(sparse, near), edges: input.edges, stats: input.stats });
}

/**
 * Vectors by nid, per project, kept in this process: a fingerprint's reference window is mostly
 * the previous one's, and reading it again from PGlite on every write cost ~0.6 s per store.
 * Vectors of a nid never change without a new model id (a content edit re-embeds under a new
 * version, and its fingerprint is recomputed from a fresh read after eviction at worst).
 */
const CACHE_PROJECTS = 16;
const vectorCache = new Map<string, Map<number, StoredVector[]>>();

async function cachedVectors(db: Db, projectId: string, nids: readonly number[]): Promise<StoredVector[]> {
  let cache = vectorCache.get(projectId);
  if (!cache) {
    if (vectorCache.size >= CACHE_PROJECTS) vectorCache.delete(vectorCache.keys().next().value!);
    cache = new Map();
    vectorCache.set(projectId, cache);
  }
  const missing = nids.filter((n) => !cache.has(n));
  for (const v of await vectorsOfNodes(db, missing)) cache.set(v.nid, [...(cache.get(v.nid) ?? []), v]);
  // Keep the window bounded: the oldest nids go first.
  if (cache.size > 4 * REFERENCE_SIZE) for (const nid of [...cache.keys()].sort((a, b) => a - b).slice(0, cache.size - 2 * REFERENCE_SIZE)) cache.delete(nid);
  return nids.flatMap((n) => cache.get(n) ?? []);
}

/** Mean cosine among a handful of vectors: how much a memory's nearest neighbours agree. */
function meanPairwise(sparse: boolean, vectors: readonly Float32Array[]): number {
  let sum = 0;
  let pairs = 0;
  for (let i = 0; i < vectors.length; i++) {
    for (let j = i + 1; j < vectors.length; j++) {
      sum += spaceSimilarity(sparse, vectors[i]!, vectors[j]!);
      pairs++;
    }
  }
  return pairs ? sum / pairs : 0;
}
