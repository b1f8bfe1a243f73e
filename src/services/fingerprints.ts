import { z } from 'zod';
import type { Embedder } from '../embed/embedder.js';
import { spaceById, SPACES } from '../embed/spaces/registry.js';
import type { EncoderInfo, SpaceId } from '../embed/types.js';
import { defineJob, type JobHandlerContext } from '../jobs/define.js';
import type { Db } from '../store/db.js';
import {
  edgeCountsByNid,
  liveMemoriesUpTo,
  lockDistanceStats,
  nidsNeedingFingerprint,
  earlierProjectNids,
  owedFingerprints,
  readDistanceStats,
  settleFingerprints,
  upsertFingerprints,
  type FingerprintRow,
  vectorsOfNodes,
  writeDistanceStats,
  type DistanceStatsRow,
  type StoredVector,
} from '../store/fingerprints-repo.js';
import { fingerprintBatchMath, meanPairwise } from '../utl/fingerprint-batch.js';
import { fittedLambda } from '../store/meta-utl-repo.js';
import { nodesByNid } from '../store/nodes-repo.js';
import { centroid, K_NEAREST, learningMagnitude, MATURITY_AT, spaceSimilarity, spaceUtl, type DistanceStats, type SpaceUtl } from '../utl/utl.js';

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
  async handler({ project_id: projectId }, { deps, report, signal, yieldToCallers }: JobHandlerContext<z.input<typeof fingerprintProgress>, FingerprintJobDeps>) {
    const encoders = deps.embedder.encoders();
    const key = modelKey(encoders);
    let done = 0;
    // One job per project drains what the embed job owed (fingerprint_outbox), a batch at a time in
    // nid order: a burst of writes queues one job (the id dedupes while it waits), and the
    // reference vectors are read once per batch. What is owed while it runs is read by its next
    // batch; the loop ends when nothing is owed.
    let after = 0;
    let size = MIN_BATCH;
    let count: MemoryCount | null = null;
    for (;;) {
      const owed = await owedFingerprints(deps.db, projectId, size, after);
      if (owed.length === 0) {
        if (after === 0) break;
        // Owed behind the cursor meanwhile (an older memory re-embedded): one more pass from the start.
        after = 0;
        count = null;
        continue;
      }
      const nids = await nidsNeedingFingerprint(deps.db, owed, key);
      const batch = await fingerprintBatch(deps.db, deps.embedder, encoders, key, projectId, nids, count, owed);
      done += batch.done;
      count = batch.count;
      after = owed[owed.length - 1]!;
      await report({ done, total: done });
      // Calls first between batches, and small batches while they keep coming: a burst of writes
      // leaves hundreds owed, and one long run of them would slow every write it overlaps.
      const asked = Date.now();
      await yieldToCallers?.();
      size = Date.now() - asked > 1 ? MIN_BATCH : Math.min(MAX_BATCH, size * 2);
      // Shutting down: what is still owed stays in the outbox for the next start.
      if (signal.aborted) break;
    }
    return { fingerprinted: done };
  },
});

/** Memories per batch: from MIN_BATCH, doubling while no caller is waiting. */
const MIN_BATCH = 32;
const MAX_BATCH = 500;

function sameStats(a: ReadonlyMap<string, DistanceStatsRow>, b: ReadonlyMap<string, DistanceStatsRow>): boolean {
  if (a.size !== b.size) return false;
  for (const [space, x] of a) {
    const y = b.get(space);
    if (!y || y.n !== x.n || y.mean !== x.mean || y.m2 !== x.m2) return false;
  }
  return true;
}

/** A project's live memories with a nid below `nid`: where the next batch's lifecycle count starts. */
interface MemoryCount {
  nid: number;
  below: number;
}

async function fingerprintBatch(
  db: Db,
  embedder: Pick<Embedder, 'fingerprintMath'>,
  encoders: readonly EncoderInfo[],
  key: string,
  projectId: string,
  nids: readonly number[],
  previous: MemoryCount | null,
  /** What the outbox owed for this batch: settled with the fingerprints (or at once when none is left to compute). */
  owed: readonly number[],
): Promise<{ done: number; count: MemoryCount | null }> {
  const nodes = (await nodesByNid(db, nids)).filter((n) => n.deleted_at === null).sort((a, b) => a.nid - b.nid);
  if (nodes.length === 0) {
    await settleFingerprints(db, owed);
    return { done: 0, count: previous };
  }
  // The lifecycle stage counts the project's live memories up to each one (its interaction
  // count when it was learned), so it does not depend on when the job runs.
  const counts = await liveMemoriesUpTo(db, projectId, nodes[0]!.nid, nodes[nodes.length - 1]!.nid, previous, MATURITY_AT);
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
  // The arithmetic runs on a thread of its own (Embedder.fingerprintMath) against the moments
  // read now, outside the transaction: on the main thread, or with the transaction open, it would hold up every call
  // (and the one PGlite connection) for a few ms per memory. Another process that advanced the
  // moments meanwhile makes the locked read differ: the batch is then measured again, in place.
  const spaces = encoders.map((e) => e.space);
  const input = { encoders, nids: nodes.map((n) => n.nid), vectors: [...before, ...own], edges, window: REFERENCE_SIZE };
  const basis = await readDistanceStats(db, projectId, spaces);
  const guess = await embedder.fingerprintMath({ ...input, stats: new Map(basis) });
  await db.transaction(async (tx) => {
    const locked = await lockDistanceStats(tx, projectId, spaces);
    let { results, stats } = guess;
    if (!sameStats(locked, basis)) {
      stats = locked;
      results = fingerprintBatchMath({ ...input, stats });
    }
    const rows: Array<Omit<FingerprintRow, 'computed_at'>> = [];
    for (const node of nodes) {
      const perSpace = results.get(node.nid) ?? [];
      const { learning, stage } = learningMagnitude(
        perSpace.map((s) => ({ surprise: s.surprise, coherence: s.coherence, weight: utlWeight(s.space) })),
        counts.get(node.nid) ?? counts.size,
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
    await settleFingerprints(tx, owed);
  });
  const last = nodes[nodes.length - 1]!.nid;
  return { done: nodes.length, count: { nid: last + 1, below: counts.get(last) ?? 0 } };
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
  // Keep the window bounded (the oldest nids go first), before adding what this call returns.
  if (cache.size > 4 * REFERENCE_SIZE) for (const nid of [...cache.keys()].sort((a, b) => a - b).slice(0, cache.size - 2 * REFERENCE_SIZE)) cache.delete(nid);
  const missing = nids.filter((n) => !cache.has(n));
  for (const v of await vectorsOfNodes(db, missing)) cache.set(v.nid, [...(cache.get(v.nid) ?? []), v]);
  return nids.flatMap((n) => cache.get(n) ?? []);
}
