import type { Embedder } from '../embed/embedder.js';
import type { SpaceId } from '../embed/types.js';
import type { VectorIndexes } from '../index/vector-index.js';
import type { Db } from '../store/db.js';
import { nodesByNid, type NodeRecord } from '../store/nodes-repo.js';
import { fuseRanks, type RankedSignal } from './fusion.js';

export interface HybridQuery {
  text: string;
  limit: number;
  projectId?: string | undefined;
}

export interface SignalScore {
  rank: number;
  score: number;
}

export interface HybridHit {
  node: NodeRecord;
  /** Normalised fused score in (0, 1]. */
  score: number;
  /** Per signal that found the hit: its rank and raw score (ts_rank_cd, cosine similarity). */
  signals: Record<string, SignalScore>;
}

/**
 * Relative trust in each signal. E9 (character trigrams) rescues typos and rare tokens but is
 * noisy on paraphrase, so it counts half. Tuned by bench/, not by guess, once the quality set exists.
 */
export const SIGNAL_WEIGHTS: Record<string, number> = { lexical: 1, E1: 1, E9: 0.5 };

const MIN_CANDIDATES = 50;

/**
 * Hybrid retrieval: Postgres full text (OR-tolerant) and one dense list per enabled space,
 * fused by weighted RRF, then filtered (project, tombstones) on the fetched rows.
 */
export class SearchService {
  constructor(private readonly deps: { db: Db; embedder: Embedder; indexes: VectorIndexes }) {}

  async hybrid(q: HybridQuery): Promise<HybridHit[]> {
    // Vector indexes are shared across projects, so ask for more than `limit` before filtering.
    const depth = Math.max(MIN_CANDIDATES, q.limit * 10);
    const spaces = this.deps.embedder.encoders().map((e) => e.space);
    const [lexical, dense] = await Promise.all([this.lexical(q.text, depth, q.projectId), this.dense(q.text, spaces, depth)]);
    const signals: RankedSignal[] = [{ name: 'lexical', weight: SIGNAL_WEIGHTS.lexical ?? 1, hits: lexical }, ...dense];
    const fused = fuseRanks(signals);
    const rows = new Map((await nodesByNid(this.deps.db, fused.slice(0, depth * 2).map((f) => f.key))).map((n) => [n.nid, n]));
    const hits: HybridHit[] = [];
    for (const f of fused) {
      const node = rows.get(f.key);
      if (!node || node.deleted_at !== null) continue;
      if (q.projectId !== undefined && node.project_id !== q.projectId) continue;
      hits.push({ node, score: f.score, signals: f.signals });
      if (hits.length >= q.limit) break;
    }
    return hits;
  }

  private async lexical(text: string, limit: number, projectId: string | undefined): Promise<{ key: number; score: number }[]> {
    // Lexemes joined with | : a long natural-language question must not need every word to match.
    const rows = await this.deps.db.query<{ nid: number; rank: number }>(
      `with q as (
         select to_tsquery('simple', coalesce(string_agg(quote_literal(l), ' | '), '')) as tsq
           from unnest(tsvector_to_array(to_tsvector('english', $1))) as l
       )
       select n.nid, ts_rank_cd(n.tsv, q.tsq) as rank
         from nodes n, q
        where n.tsv @@ q.tsq and n.deleted_at is null and ($2::text is null or n.project_id = $2)
        order by rank desc, n.nid
        limit $3`,
      [text, projectId ?? null, limit],
    );
    return rows.map((r) => ({ key: r.nid, score: r.rank }));
  }

  private async dense(text: string, spaces: SpaceId[], k: number): Promise<RankedSignal[]> {
    if (spaces.length === 0) return [];
    const vectors = await this.deps.embedder.embed([text], spaces);
    return Promise.all(
      spaces.map(async (space) => {
        const vector = vectors.get(space)?.[0];
        const hits = vector ? await this.deps.indexes.search(space, vector, k) : [];
        return { name: space, weight: SIGNAL_WEIGHTS[space] ?? 0.5, hits: hits.map((h) => ({ key: h.key, score: h.similarity })) };
      }),
    );
  }
}
