import { z } from 'zod';
import { newId } from '../ids.js';
import type { Embedder } from '../embed/embedder.js';
import { AppError } from '../errors.js';
import { defineJob, type JobHandlerContext } from '../jobs/define.js';
import type { Db } from '../store/db.js';
import { repointEdges, tombstoneNodes, vectorsOf } from '../store/curation-repo.js';
import { insertEdge, lockLiveEdgesOfNodes, softDeleteEdges } from '../store/edges-repo.js';
import { retractEmbeddings, type EmbeddingWrite } from '../store/embeddings-repo.js';
import { insertNode, liveNodesById, lockNodesById, type NodeRecord } from '../store/nodes-repo.js';
import { curate, nodeNotFound, type Curated } from './curation.js';
import { embedJob, embeddingText } from './embedding.js';
import type { EmbeddingScheduler } from './embedding-scheduler.js';
import { extractiveSummary } from './summarize.js';
import { contentHash, image, newNode } from './writes.js';

export const MERGE_STRATEGIES = ['summarize', 'keep_highest', 'concatenate'] as const;
export type MergeStrategy = (typeof MERGE_STRATEGIES)[number];
/** Sources whose E1 vectors are less similar than this have incompatible priors (seed 001 EC-MCP-001). */
export const PRIORS_MIN_COSINE = 0.7;
/** A merge of more sources, or more text, than this runs as a job with progress. */
export const MERGE_JOB_MIN_SOURCES = 10;
export const MERGE_JOB_MIN_CHARS = 50_000;
export const CONCAT_SEPARATOR = '\n\n';
const MAX_CONTENT = 65_536;
const PRIORS_SPACE = 'E1';

/** Who wrote a summarize merge's text: the client's model (MCP sampling) or sentence selection. */
export type SummarizedBy = 'sampling' | 'extractive';

export const mergePayload = z.object({
  source_ids: z.array(z.string()).min(2),
  target_name: z.string(),
  strategy: z.enum(MERGE_STRATEGIES),
  rationale: z.string(),
  force_merge: z.boolean(),
  /** A summary the client's model wrote (sampling); null means choose sentences here. */
  sampled_summary: z.string().nullable(),
  actor: z.string().nullable(),
});
export type MergeRequest = z.output<typeof mergePayload>;

export const mergeResult = z.object({
  merged_id: z.string(),
  tx_id: z.number().int(),
  reversal_hash: z.string(),
  source_ids: z.array(z.string()),
  strategy: z.enum(MERGE_STRATEGIES),
  summarized_by: z.enum(['sampling', 'extractive']).nullable(),
  priors_min_cosine: z.number().nullable(),
  forced: z.boolean(),
  edges_repointed: z.number().int(),
  edges_dropped: z.number().int(),
  relational_edges: z.number().int(),
  content_chars: z.number().int(),
});
export type MergeResult = z.output<typeof mergeResult>;

const mergeProgress = z.object({ done: z.number().int(), total: z.number().int(), phase: z.string() });

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** The lowest pairwise E1 cosine of the sources (stored vectors; missing ones are computed). */
async function priorsMinCosine(db: Db, embedder: Pick<Embedder, 'embed'>, nodes: readonly NodeRecord[]): Promise<number | null> {
  const stored = await vectorsOf(
    db,
    nodes.map((n) => n.nid),
    PRIORS_SPACE,
  );
  const missing = nodes.filter((n) => !stored.has(n.nid));
  if (missing.length > 0) {
    const fresh = (await embedder.embed(missing.map(embeddingText), [PRIORS_SPACE])).get(PRIORS_SPACE) ?? [];
    missing.forEach((n, i) => fresh[i] && stored.set(n.nid, fresh[i]));
  }
  let min: number | null = null;
  for (let i = 0; i < nodes.length; i++) {
    for (let j = i + 1; j < nodes.length; j++) {
      const a = stored.get(nodes[i]!.nid);
      const b = stored.get(nodes[j]!.nid);
      if (!a || !b) continue;
      const c = cosine(a, b);
      min = min === null ? c : Math.min(min, c);
    }
  }
  return min;
}

/** Live sources in the order given; NODE_NOT_FOUND names the first unknown or deleted one. */
export async function loadSources(db: Db, ids: readonly string[]): Promise<NodeRecord[]> {
  const unique = [...new Set(ids)];
  if (unique.length < 2) {
    throw new AppError('INVALID_PARAMS', 'source_node_ids: give at least 2 different nodes to merge.', {
      issues: [{ path: 'source_node_ids', message: 'at least 2 distinct ids', minimum: 2 }],
    });
  }
  const rows = new Map((await liveNodesById(db, unique)).map((n) => [n.id, n]));
  const missing = unique.find((id) => !rows.has(id));
  if (missing) throw nodeNotFound(missing);
  return unique.map((id) => rows.get(id)!);
}

export function isLargeMerge(nodes: readonly NodeRecord[]): boolean {
  return nodes.length >= MERGE_JOB_MIN_SOURCES || nodes.reduce((n, s) => n + s.content.length, 0) >= MERGE_JOB_MIN_CHARS;
}

function byImportance(nodes: readonly NodeRecord[]): NodeRecord[] {
  return [...nodes].sort((a, b) => b.importance - a.importance || b.confidence - a.confidence || (a.created_at < b.created_at ? 1 : -1));
}

function mergedContent(nodes: readonly NodeRecord[], req: MergeRequest): { content: string; summarizedBy: SummarizedBy | null } {
  if (req.strategy === 'keep_highest') return { content: byImportance(nodes)[0]!.content, summarizedBy: null };
  const texts = [...new Set(nodes.map((n) => n.content.trim()))];
  if (req.strategy === 'concatenate') return { content: texts.join(CONCAT_SEPARATOR), summarizedBy: null };
  if (req.sampled_summary?.trim()) return { content: req.sampled_summary.trim(), summarizedBy: 'sampling' };
  return { content: extractiveSummary(texts).text, summarizedBy: 'extractive' };
}

/**
 * The merge itself, shared by the synchronous path and the job: checks priors, writes the merged
 * node (provenance in metadata.merged_from), tombstones the sources (metadata.merged_into),
 * re-points their edges, and records it all as one transaction with a reversal hash.
 */
export async function performMerge(
  deps: {
    db: Db;
    embedder: Pick<Embedder, 'embed'>;
    /** The merged node's keyword vectors, written in the merge's transaction (nid filled in there). */
    keyword?: (node: { nid: number; topic: string | null; content: string }) => Promise<EmbeddingWrite[]>;
  },
  req: MergeRequest,
  report: (phase: string, done: number) => Promise<void> = async () => {},
  /** The sources as the caller just read them (live); the transaction locks and checks them again. */
  loaded?: readonly NodeRecord[],
): Promise<{ result: MergeResult; merged: NodeRecord; keywordWritten: boolean }> {
  const nodes = loaded ? [...loaded] : await loadSources(deps.db, req.source_ids);
  await report('sources loaded', 1);
  const minCos = await priorsMinCosine(deps.db, deps.embedder, nodes);
  const incompatible = minCos !== null && minCos < PRIORS_MIN_COSINE;
  if (incompatible && !req.force_merge) {
    throw new AppError(
      'PRIORS_INCOMPATIBLE',
      `The sources' priors are incompatible: their lowest E1 cosine similarity is ${minCos.toFixed(3)} (< ${PRIORS_MIN_COSINE}). Review them, or pass force_merge: true to merge anyway (a Relational edge then links the merged node to each source instead of merging their priors).`,
      { priors_min_cosine: minCos, threshold: PRIORS_MIN_COSINE, source_ids: nodes.map((n) => n.id) },
    );
  }
  await report('priors checked', 2);
  const { content, summarizedBy } = mergedContent(nodes, req);
  if (content.length > MAX_CONTENT) {
    throw new AppError('INVALID_PARAMS', `The merged content would be ${content.length} characters, over the 65,536 limit; use summarize or keep_highest.`, {
      issues: [{ path: 'merge_strategy', message: 'merged content too long', maximum: MAX_CONTENT }],
    });
  }
  await report('content built', 3);
  const ids = nodes.map((n) => n.id);
  const mergedId = newId();
  const top = byImportance(nodes)[0]!;
  const keyword = (await deps.keyword?.({ nid: 0, topic: req.target_name, content })) ?? [];
  const committed: Curated<{ merged: NodeRecord; repointed: number; dropped: number; relational: number }> = await curate(
    deps.db,
    'merge',
    { actor: req.actor, rationale: req.rationale, reason: 'merge' },
    async (tx, log) => {
      const locked = await lockNodesById(tx, ids);
      const gone = ids.find((id) => !locked.some((n) => n.id === id && n.deleted_at === null));
      if (gone) throw nodeNotFound(gone, true);
      const merged = await insertNode(tx, {
        ...newNode({ kind: top.kind, project_id: top.project_id, content }),
        id: mergedId,
        memory_type: top.memory_type,
        topic: req.target_name,
        tags: [...new Set(nodes.flatMap((n) => n.tags))].slice(0, 64),
        importance: Math.max(...nodes.map((n) => n.importance)),
        confidence: Math.min(...nodes.map((n) => n.confidence)),
        metadata: { merged_from: ids, merge: { strategy: req.strategy, summarized_by: summarizedBy, priors_min_cosine: minCos, forced: incompatible } },
        content_hash: contentHash(content),
      });
      log({ entity: 'node', entityId: mergedId, before: null, after: image(merged) });
      const tombstoned = new Map((await tombstoneNodes(tx, ids, { merged_into: mergedId, tombstone: { reason: 'merged', rationale: req.rationale } })).map((n) => [n.id, n]));
      for (const old of locked) log({ entity: 'node', entityId: old.id, before: image(old), after: image(tombstoned.get(old.id)!) });
      const edges = await lockLiveEdgesOfNodes(tx, ids);
      const inside = edges.filter((e) => ids.includes(e.src) && ids.includes(e.dst));
      const outside = edges.filter((e) => !inside.includes(e));
      const dropped = await softDeleteEdges(
        tx,
        inside.map((e) => e.id),
      );
      const repointed = await repointEdges(
        tx,
        outside.map((e) => e.id),
        ids,
        mergedId,
      );
      const after = new Map([...dropped, ...repointed].map((e) => [e.id, e]));
      for (const e of edges) log({ entity: 'edge', entityId: e.id, before: image(e), after: image(after.get(e.id)!) });
      let relational = 0;
      if (incompatible) {
        for (const source of locked) {
          const edge = await insertEdge(tx, {
            id: newId(),
            src: mergedId,
            dst: source.id,
            edge_type: 'Relational',
            predicate: 'merged_from',
            weight: 1,
            confidence: 1,
            metadata: { how: 'force_merge', priors_min_cosine: minCos },
            valid_from: null,
            valid_to: null,
          });
          log({ entity: 'edge', entityId: edge.id, before: null, after: image(edge) });
          relational++;
        }
      }
      await retractEmbeddings(
        tx,
        locked.map((n) => n.nid),
        keyword.map((w) => ({ ...w, nid: merged.nid })),
      );
      return { nodeIds: [mergedId, ...ids], result: { merged, repointed: repointed.length, dropped: dropped.length, relational } };
    },
  );
  await report('committed', 4);
  const r = committed.result;
  return {
    merged: r.merged,
    keywordWritten: keyword.length > 0,
    result: {
      merged_id: mergedId,
      tx_id: committed.txId,
      reversal_hash: committed.reversalHash!,
      source_ids: ids,
      strategy: req.strategy,
      summarized_by: summarizedBy,
      priors_min_cosine: minCos,
      forced: incompatible,
      edges_repointed: r.repointed,
      edges_dropped: r.dropped,
      relational_edges: r.relational,
      content_chars: content.length,
    },
  };
}

export interface MergeJobDeps {
  db: Db;
  embedder: Embedder;
}

/** Large merges (many or long sources) run here, reporting each phase; the merged node is embedded before the job ends. */
export const mergeJob = defineJob({
  type: 'curation.merge',
  payload: mergePayload,
  progress: mergeProgress,
  result: mergeResult,
  attempts: 1,
  async handler(payload, ctx: JobHandlerContext<z.input<typeof mergeProgress>, MergeJobDeps>) {
    const total = 5;
    const { result, merged } = await performMerge(ctx.deps, payload, (phase, done) => ctx.report({ done, total, phase }));
    await embedJob.handler({ nids: [merged.nid] }, { ...ctx, report: async () => {} });
    await ctx.report({ done: total, total, phase: 'embedded' });
    return result;
  },
});

/** Merges that are small enough to answer at once; large ones go through mergeJob. */
export class MergeService {
  constructor(
    private readonly deps: {
      db: Db;
      embedder: Pick<Embedder, 'embed'>;
      embedding: (Pick<EmbeddingScheduler, 'schedule'> & Partial<Pick<EmbeddingScheduler, 'keywordVectors'>>) | null;
    },
  ) {}

  /** The live sources (NODE_NOT_FOUND otherwise) and whether the merge should run as a job. */
  async prepare(ids: readonly string[]): Promise<{ sources: NodeRecord[]; large: boolean }> {
    const sources = await loadSources(this.deps.db, ids);
    return { sources, large: isLargeMerge(sources) };
  }

  /**
   * After mergeJob: the job wrote the merged node's vectors; scheduling again (a cheap, deduped
   * embed) waits until this process's indexes hold them, as the synchronous path does.
   */
  async settle(mergedId: string): Promise<void> {
    const [node] = await liveNodesById(this.deps.db, [mergedId]);
    if (node) await this.deps.embedding?.schedule([node]);
  }

  /**
   * Answers once the merge is committed with the merged node's keyword vector (keyword search
   * finds it at once; `sources` are the live sources `prepare` read); its dense vectors land
   * through the embed job, as `store` reports
   * with `searchable: false`. Waiting for them cost most of a merge's latency (seed 001 NFR-001:
   * curation p95 < 100 ms), and an undo in between is safe: the job skips a tombstoned node and
   * search drops any vector of a deleted one.
   */
  async merge(req: MergeRequest, sources?: readonly NodeRecord[]): Promise<MergeResult & { searchable: boolean; keyword_searchable: boolean }> {
    const scheduler = this.deps.embedding;
    const keyword = scheduler?.keywordVectors ? (node: { nid: number; topic: string | null; content: string }) => scheduler.keywordVectors!([node]) : undefined;
    const { result, merged, keywordWritten } = await performMerge({ ...this.deps, ...(keyword ? { keyword } : {}) }, req, undefined, sources);
    // Every re-pointed edge now ends at the merged node (the dropped ones joined two sources, both
    // tombstoned): its embed job recomputes the E8 vectors of it and its neighbours
    // (graphNeighbourhoodOf), so the merge needs no graph-embed job of its own.
    const scheduled = await scheduler?.schedule([merged], { wait: false, keywordWritten, background: true });
    return { ...result, searchable: scheduled?.searchable ?? false, keyword_searchable: scheduled?.keywordSearchable ?? false };
  }
}
