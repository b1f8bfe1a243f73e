import { z } from 'zod';
import type { Embedder } from '../embed/embedder.js';
import { defineJob, enqueueJob, type JobHandlerContext } from '../jobs/define.js';
import type { JobHandle, JobQueue } from '../jobs/queue.js';
import type { Logger } from '../log.js';
import type { Db } from '../store/db.js';
import { writeEmbeddings, type EmbeddingWrite } from '../store/embeddings-repo.js';
import { oweFingerprints, oweStaleFingerprints } from '../store/fingerprints-repo.js';
import { nidsMissingEmbedding, nodesByNid, type NodeRecord } from '../store/nodes-repo.js';
import { coveredModels, owedNids, recordCoverage, renewOwedEmbeddings, settleOwedEmbeddings } from '../store/outbox-repo.js';
import { projectPositions, type PositionAnchor } from '../store/positions-repo.js';
import type { EncodeItem } from '../embed/encoder.js';
import type { SpaceId } from '../embed/types.js';
import { isSpaceId } from '../embed/spaces/registry.js';
import { fingerprintJob, modelKey } from './fingerprints.js';
import { enqueueGraphEmbed, graphNeighbourhoodOf } from './graph-embedding.js';

/** What an embedding for a node is made from: the topic carries meaning the content may not repeat. */
export function embeddingText(node: { topic: string | null; content: string }): string {
  return node.topic ? `${node.topic}\n${node.content}` : node.content;
}

const embedProgress = z.object({
  /** Live nodes of the payload whose vectors are written. */
  embedded: z.number().int().nonnegative(),
  /** Nodes in the payload, deleted ones included. */
  total: z.number().int().nonnegative(),
});

export interface EmbedJobDeps {
  db: Db;
  embedder: Embedder;
  /** Where the fingerprint job of the embedded nodes goes; absent, none is enqueued. */
  queue?: JobQueue;
}

/**
 * The `embed` job: computes every enabled space's vector for the given nodes and upserts them.
 * Idempotent: a retry or a duplicate delivery rewrites the same rows.
 */
export const embedJob = defineJob({
  type: 'embed',
  payload: z.object({
    nids: z.array(z.number().int().positive()).min(1),
    /** The bulk import queues the fingerprint job itself once its batches are in (off its critical path). */
    defer_fingerprints: z.boolean().optional(),
    /**
     * Only these spaces: a pass of the two-pass bulk import (services/import.ts). Without
     * `first_pass_versions` it is the first pass, which settles nothing: the nodes still owe
     * their other spaces.
     */
    spaces: z.array(z.custom<SpaceId>(isSpaceId, 'an embedding space id')).min(1).optional(),
    /**
     * The second pass: per nid (same order), the version the first pass was queued for. The debt
     * is settled up to the older of that and the version read now, so a node changed in between
     * stays owed and is embedded again in every space.
     */
    first_pass_versions: z.array(z.number().int().nonnegative()).optional(),
  }),
  progress: embedProgress,
  result: z.object({
    embedded: z.number().int().nonnegative(),
    /** The feed position of the last vector written: a replica holds them all once it reaches it (IndexSync.reach). */
    feed_seq: z.number().int().nonnegative().optional(),
  }),
  async handler(payload, { deps, report }: JobHandlerContext<z.input<typeof embedProgress>, EmbedJobDeps>) {
    const { nids, defer_fingerprints: deferFingerprints, spaces } = payload;
    const firstPass = spaces !== undefined && payload.first_pass_versions === undefined;
    const passVersion = new Map(payload.first_pass_versions?.map((v, i) => [nids[i]!, v]) ?? []);
    const read = await nodesByNid(deps.db, nids);
    // What this run settles in the outbox: the versions it read (a newer version stays owed),
    // and nodes that no longer exist; a second pass no more than what the first pass embedded.
    const found = new Set(read.map((n) => n.nid));
    const settled = firstPass
      ? []
      : [
          ...read.map((n) => ({ nid: n.nid, version: Math.min(n.version, passVersion.get(n.nid) ?? n.version) })),
          ...nids.filter((nid) => !found.has(nid)).map((nid) => ({ nid, version: 2 ** 31 - 1 })),
        ];
    const nodes = read.filter((n) => n.deleted_at === null);
    if (nodes.length === 0) {
      await settleOwedEmbeddings(deps.db, settled);
      return { embedded: 0 };
    }
    const encoders = deps.embedder.encoders().filter((e) => !spaces || spaces.includes(e.space));
    const vectors = await deps.embedder.embed(nodes.map(embeddingText), spaces ? encoders.map((e) => e.space) : undefined, {
      items: await encodeItems(deps.db, nodes),
      background: true,
    });
    const writes: EmbeddingWrite[] = [];
    for (const enc of encoders) {
      const list = vectors.get(enc.space);
      if (!list) continue;
      const dense = enc.dim > 0;
      nodes.forEach((node, i) => writes.push({ nid: node.nid, space: enc.space, modelId: enc.modelId, vector: list[i]!, dense }));
    }
    // The fingerprint debt and the settled embedding debt commit with the vectors, and the graph
    // neighbourhood is read in the same transaction: one commit.
    const nodeNids = nodes.map((n) => n.nid);
    const withE8 = deps.queue !== undefined && encoders.some((e) => e.space === 'E8');
    let neighbourhood: number[] = [];
    const feedSeq = await writeEmbeddings(deps.db, writes, async (tx) => {
      // A first pass leaves the fingerprints to the pass that completes the vectors they compare.
      if (!firstPass) await oweFingerprints(tx, nodeNids);
      await settleOwedEmbeddings(tx, settled);
      if (withE8) neighbourhood = await graphNeighbourhoodOf(tx, nodeNids);
    });
    // A node with edges just had its E8 reset to its own vector, and its neighbours' means moved.
    if (deps.queue && neighbourhood.length > 0) await enqueueGraphEmbed(deps.queue, neighbourhood);
    if (deps.queue && !deferFingerprints && !firstPass) {
      for (const projectId of new Set(nodes.map((n) => n.project_id))) await enqueueFingerprints(deps.queue, projectId);
    }
    await report({ embedded: nodes.length, total: nids.length });
    return { embedded: nodes.length, feed_seq: feedSeq };
  },
});

/** One waiting fingerprint job per project is enough: it drains every memory still missing a fingerprint. */
export function enqueueFingerprints(queue: JobQueue, projectId: string, opts: { delayMs?: number; background?: boolean } = {}) {
  return enqueueJob(queue, fingerprintJob, { project_id: projectId }, { jobId: `fingerprint-${Buffer.from(projectId).toString('hex')}`, ...opts });
}

/**
 * Known positions per project in this process (most recently used project last), a few per
 * project in nid order: embed jobs may finish out of order, and an anchor after a batch's first
 * node is no use to it (projectPositions would count the project from its start).
 */
const positionAnchors = new Map<string, PositionAnchor[]>();
const MAX_POSITION_ANCHOR_PROJECTS = 1_000;
const ANCHORS_PER_PROJECT = 8;

/** What E2–E4 encode besides the text: the memory's time (valid_from, else created_at) and its order in its project. */
async function encodeItems(db: Db, nodes: readonly NodeRecord[]): Promise<EncodeItem[]> {
  const positions = await projectPositions(db, nodes, bestAnchors(nodes));
  // The last position learned per project: a later batch counts only the nodes written since.
  for (const projectId of new Set(nodes.map((n) => n.project_id))) {
    const last = nodes.filter((n) => n.project_id === projectId).reduce((a, b) => (b.nid > a.nid ? b : a));
    const position = positions.get(last.nid);
    if (position === undefined) continue;
    const known = (positionAnchors.get(projectId) ?? []).filter((a) => a.nid !== last.nid);
    positionAnchors.delete(projectId);
    if (positionAnchors.size >= MAX_POSITION_ANCHOR_PROJECTS) positionAnchors.delete(positionAnchors.keys().next().value!);
    known.push({ nid: last.nid, position });
    known.sort((a, b) => a.nid - b.nid);
    positionAnchors.set(projectId, known.slice(-ANCHORS_PER_PROJECT));
  }
  return nodes.map((n) => ({ at: (n.valid_from ?? n.created_at).getTime(), position: positions.get(n.nid) ?? 0 }));
}

/** Per project of the batch, the latest known position at or before its first node. */
function bestAnchors(nodes: readonly NodeRecord[]): Map<string, PositionAnchor> {
  const first = new Map<string, number>();
  for (const n of nodes) first.set(n.project_id, Math.min(first.get(n.project_id) ?? n.nid, n.nid));
  const best = new Map<string, PositionAnchor>();
  for (const [projectId, lo] of first) {
    const usable = (positionAnchors.get(projectId) ?? []).filter((a) => a.nid <= lo);
    if (usable.length > 0) best.set(projectId, usable[usable.length - 1]!);
  }
  return best;
}

/** The embed job's name on the queue, for code that enqueues it by name (bench/load.ts). */
export const EMBED_JOB = embedJob.type;

/**
 * The dedupe key of an embed job: the same nodes at the same version are embedded once while
 * a job for them waits or runs.
 */
export function embedJobId(nids: readonly number[], version: number | string = 1): string {
  return nids.length === 1 ? `embed-${nids[0]}-v${version}` : `embed-${nids[0]}-${nids[nids.length - 1]}-${nids.length}-v${version}`;
}

/**
 * Enqueues embedding for live nodes that lack a vector from the active model of a space: writes
 * whose job was lost (a crash of the in-process queue: their outbox debts) and memories stored
 * under another model. Only a space whose active model is not yet recorded as covering every
 * node (db/200) is searched node by node, and recorded once that finds none missing: the search
 * costs a probe per node and space, seconds at 100k memories, on every start before the server
 * answers.
 */
export async function enqueueEmbeddingBacklog(
  deps: { db: Db; queue: JobQueue; embedder: Embedder; logger: Logger },
  opts: { batch?: number; onQueued?: (job: JobHandle) => void } = {},
): Promise<number> {
  const batch = opts.batch ?? 256;
  const owed = await owedNids(deps.db);
  const missing = new Set<number>(owed);
  const covered = await coveredModels(deps.db);
  for (const enc of deps.embedder.encoders()) {
    if (covered.get(enc.space) === enc.modelId) continue;
    let after = 0;
    let found = 0;
    for (;;) {
      const nids = await nidsMissingEmbedding(deps.db, enc.space, enc.modelId, after, 10_000);
      for (const nid of nids) missing.add(nid);
      found += nids.length;
      if (nids.length < 10_000) break;
      after = nids[nids.length - 1]!;
    }
    if (found === 0) await recordCoverage(deps.db, enc.space, enc.modelId);
  }
  const all = [...missing].sort((a, b) => a - b);
  for (let i = 0; i < all.length; i += batch) {
    const chunk = all.slice(i, i + batch);
    opts.onQueued?.(await enqueueJob(deps.queue, embedJob, { nids: chunk }, { jobId: embedJobId(chunk, 'backlog') }));
  }
  // Leased like the outbox's own dispatches, so its drain does not enqueue them a second time.
  await renewOwedEmbeddings(deps.db, owed);
  if (all.length > 0) deps.logger.info({ nodes: all.length }, 'queued embedding backlog');
  return all.length;
}

/**
 * At start-up: owes the fingerprints computed under another model key (the spaces changed) and
 * queues the fingerprint job of every project that owes any, including what a crash left owed.
 */
export async function enqueueFingerprintBacklog(deps: { db: Db; queue: JobQueue; embedder: Embedder; logger: Logger }): Promise<number> {
  const projects = await oweStaleFingerprints(deps.db, modelKey(deps.embedder.encoders()));
  for (const projectId of projects) await enqueueFingerprints(deps.queue, projectId);
  if (projects.length > 0) deps.logger.info({ projects: projects.length }, 'queued fingerprint backlog');
  return projects.length;
}
