import type { Embedder } from '../../embed/embedder.js';
import { implementedSpaces, spaceById } from '../../embed/spaces/registry.js';
import type { SpaceId } from '../../embed/types.js';
import type { VectorIndexes } from '../../index/vector-index.js';
import { AppError } from '../../errors.js';
import type { Db } from '../../store/db.js';
import { liveNodesById, nodesByNid, type NodeRecord } from '../../store/nodes-repo.js';
import { filteredCandidates } from '../candidates.js';
import { queryTermStats } from '../query-weights.js';
import type { SearchService } from '../search.js';

/**
 * test_recall_accuracy and debug_compare_retrieval: the live search judged against the answers a
 * caller expects, and each embedding space's own ranking side by side (the per-space candidate
 * lists hybrid search fuses, generated the same way: src/services/candidates.ts).
 */

export interface RetrievedHit {
  node: NodeRecord;
  rank: number;
  score: number;
}

export interface RecallReport {
  retrieved: Array<RetrievedHit & { expected: boolean }>;
  precision: number;
  recall: number;
  f1: number;
  missing_expected: string[];
  unexpected_results: string[];
}

export interface SpaceRanking {
  space: SpaceId;
  signal: string;
  hits: RetrievedHit[];
}

export interface Overlap {
  a: SpaceId;
  b: SpaceId;
  shared: number;
  /** |A ∩ B| / |A ∪ B| of the two top-k id sets. */
  jaccard: number;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

export class RetrievalDiagnostics {
  constructor(private readonly deps: { db: Db; embedder: Embedder; indexes: VectorIndexes; search: SearchService }) {}

  /** Precision, recall and F1 of the live hybrid search's top k against the expected memories. */
  async recallAccuracy(q: { query: string; expectedIds: readonly string[]; topK: number; projectId?: string | undefined; scoreThreshold: number }): Promise<RecallReport> {
    const expected = [...new Set(q.expectedIds)];
    const live = new Set((await liveNodesById(this.deps.db, expected)).map((n) => n.id));
    const unknown = expected.filter((id) => !live.has(id));
    if (unknown.length > 0) throw new AppError('NODE_NOT_FOUND', `No live memory has the id ${unknown.join(', ')}; expected_node_ids must name stored memories.`, { ids: unknown });
    const { hits } = await this.deps.search.hybrid({ text: q.query, limit: q.topK, projectId: q.projectId, excludeKinds: ['entity'], scoreThreshold: q.scoreThreshold });
    const want = new Set(expected);
    const retrieved = hits.map((h, i) => ({ node: h.node, rank: i + 1, score: round(h.score), expected: want.has(h.node.id) }));
    const found = retrieved.filter((r) => r.expected).length;
    const precision = retrieved.length > 0 ? found / retrieved.length : 0;
    const recall = want.size > 0 ? found / want.size : 0;
    const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
    const got = new Set(retrieved.map((r) => r.node.id));
    return {
      retrieved,
      precision: round(precision),
      recall: round(recall),
      f1: round(f1),
      missing_expected: expected.filter((id) => !got.has(id)),
      unexpected_results: retrieved.filter((r) => !r.expected).map((r) => r.node.id),
    };
  }

  /**
   * Each asked space ranks the query alone: its query vector (E1 weighted by the keyword index's
   * live IDF, as hybrid search does), its candidate list inside the filters, its raw score
   * (BM25 for E13, cosine for dense spaces). Overlap is per pair of spaces over their top k.
   */
  async compareSpaces(q: { query: string; spaces: readonly SpaceId[]; topK: number; projectId?: string | undefined }): Promise<{ rankings: SpaceRanking[]; overlap: Overlap[] }> {
    const enabled = new Set(this.deps.embedder.encoders().map((e) => e.space));
    const off = q.spaces.filter((s) => !enabled.has(s));
    if (off.length > 0) {
      throw new AppError('INVALID_PARAMS', `spaces: ${off.join(', ')} have no encoder in this deployment.`, {
        issues: [{ path: 'spaces', message: `not embedded here: ${off.join(', ')}`, allowed: [...enabled] }],
      });
    }
    const spaces = [...new Set(q.spaces)];
    const stats = await queryTermStats(this.deps.indexes, q.query);
    const vectors = await this.deps.embedder.embed([q.query], spaces, { wordWeights: stats.wordWeights });
    const signals = spaces.flatMap((space) => {
      const vector = vectors.get(space)?.[0];
      return vector && vector.length > 0 ? [{ name: spaceById(space).signal, space, vector }] : [];
    });
    const { lists } = await filteredCandidates(this.deps, signals, { projectId: q.projectId, excludeKinds: ['entity'] }, q.topK);
    const nodes = new Map((await nodesByNid(this.deps.db, [...new Set(lists.flat().map((h) => h.key))])).map((n) => [n.nid, n]));
    const rankings: SpaceRanking[] = spaces.map((space) => {
      const i = signals.findIndex((s) => s.space === space);
      const hits = i < 0 ? [] : lists[i]!.slice(0, q.topK).flatMap((h) => (nodes.has(h.key) ? [{ node: nodes.get(h.key)!, score: round(h.similarity) }] : []));
      return { space, signal: spaceById(space).signal, hits: hits.map((h, r) => ({ ...h, rank: r + 1 })) };
    });
    const overlap: Overlap[] = [];
    for (let i = 0; i < rankings.length; i++) {
      for (let j = i + 1; j < rankings.length; j++) {
        const a = new Set(rankings[i]!.hits.map((h) => h.node.id));
        const b = new Set(rankings[j]!.hits.map((h) => h.node.id));
        const shared = [...a].filter((id) => b.has(id)).length;
        const union = new Set([...a, ...b]).size;
        overlap.push({ a: rankings[i]!.space, b: rankings[j]!.space, shared, jaccard: union > 0 ? round(shared / union) : 0 });
      }
    }
    return { rankings, overlap };
  }
}

/** Spaces debug_compare_retrieval may rank with: every implemented one (an enum for the tool's schema). */
export const COMPARABLE_SPACES = implementedSpaces().map((s) => s.id) as [SpaceId, ...SpaceId[]];
