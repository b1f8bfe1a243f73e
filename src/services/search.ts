import type { Embedder } from '../embed/embedder.js';
import type { SpaceId } from '../embed/types.js';
import type { VectorIndexes } from '../index/vector-index.js';
import type { Db } from '../store/db.js';
import { orTsQuerySql } from '../store/fts.js';
import { nodesByNid, type NodeRecord } from '../store/nodes-repo.js';
import { fuseRanks, type RankedSignal } from './fusion.js';

export interface SearchFilters {
  projectId?: string | undefined;
  memoryType?: string | undefined;
  /** Contains-any: a hit needs at least one of these tags. */
  tags?: readonly string[] | undefined;
  topic?: string | undefined;
  /** On created_at (when the memory was recorded). */
  timeRange?: { start?: Date | undefined; end?: Date | undefined } | undefined;
  /** Node kinds to leave out (named entities are graph vertices, not memories). */
  excludeKinds?: readonly string[] | undefined;
}

export interface HybridQuery extends SearchFilters {
  text: string;
  limit: number;
  /** Minimum fused score in (0, 1]; 0 keeps everything. */
  scoreThreshold?: number | undefined;
}

export interface SignalScore {
  rank: number;
  score: number;
}

export interface HybridHit {
  node: NodeRecord;
  /** Normalised fused score in (0, 1]. */
  score: number;
  /** Per signal that found the hit: its rank and raw score (ts_rank, cosine similarity). */
  signals: Record<string, SignalScore>;
}

export interface HybridResult {
  hits: HybridHit[];
  /**
   * Candidates passing the filters that share words with the query (full-text matches), before
   * `limit`; a lower bound. Vector neighbours always exist, so they do not count as matches.
   */
  matched: number;
}

/**
 * Relative trust in each signal. E9 (character trigrams) rescues typos and rare tokens but is
 * noisy on paraphrase, so it counts half. Tuned by bench/, not by guess, once the quality set exists.
 */
export const SIGNAL_WEIGHTS: Record<string, number> = { lexical: 1, E1: 1, E9: 0.5 };

const MIN_CANDIDATES = 50;
const MAX_CANDIDATES = 500;

function hasFilters(f: SearchFilters): boolean {
  return Boolean(f.projectId || f.memoryType || f.tags?.length || f.topic || f.timeRange?.start || f.timeRange?.end);
}

export function matchesFilters(node: NodeRecord, f: SearchFilters): boolean {
  if (node.deleted_at !== null) return false;
  if (f.excludeKinds?.includes(node.kind)) return false;
  if (f.projectId !== undefined && node.project_id !== f.projectId) return false;
  if (f.memoryType !== undefined && node.memory_type !== f.memoryType) return false;
  if (f.topic !== undefined && (node.topic ?? '').toLowerCase() !== f.topic.toLowerCase()) return false;
  if (f.tags?.length && !f.tags.some((t) => node.tags.includes(t))) return false;
  if (f.timeRange?.start && node.created_at < f.timeRange.start) return false;
  if (f.timeRange?.end && node.created_at > f.timeRange.end) return false;
  return true;
}

/**
 * Hybrid retrieval: Postgres full text (OR-tolerant, filtered in SQL) and one dense list per
 * enabled space, fused by weighted RRF, then filtered (project, type, tags, time, tombstones)
 * on the fetched rows and thresholded.
 */
export class SearchService {
  constructor(private readonly deps: { db: Db; embedder: Embedder; indexes: VectorIndexes }) {}

  async hybrid(q: HybridQuery): Promise<HybridResult> {
    // Vector indexes hold every project, so filtered searches look deeper before filtering.
    const depth = Math.min(MAX_CANDIDATES, Math.max(MIN_CANDIDATES, q.limit * (hasFilters(q) ? 20 : 10)));
    const spaces = this.deps.embedder.encoders().map((e) => e.space);
    const [lexical, dense] = await Promise.all([this.lexical(q.text, depth, q), this.dense(q.text, spaces, depth)]);
    const fused = fuseRanks([{ name: 'lexical', weight: SIGNAL_WEIGHTS.lexical ?? 1, hits: lexical }, ...dense]);
    const threshold = q.scoreThreshold ?? 0;
    const candidates = fused.filter((f) => f.score >= threshold);
    const rows = new Map((await nodesByNid(this.deps.db, candidates.map((f) => f.key))).map((n) => [n.nid, n]));
    const hits: HybridHit[] = [];
    let matched = 0;
    for (const f of candidates) {
      const node = rows.get(f.key);
      if (!node || !matchesFilters(node, q)) continue;
      if (f.signals.lexical) matched++;
      if (hits.length < q.limit) hits.push({ node, score: f.score, signals: f.signals });
    }
    return { hits, matched };
  }

  /**
   * Near duplicates of a text by E1 cosine: what `store` reports as possible_duplicates. Cheap
   * (one embedding and one index probe), so it runs on every store.
   */
  async nearDuplicates(text: string, opts: { projectId: string; excludeNid: number; minSimilarity: number; limit: number }): Promise<Array<{ node: NodeRecord; similarity: number }>> {
    const space = this.deps.embedder.encoders().find((e) => e.space === 'E1')?.space;
    if (!space) return [];
    const [vector] = (await this.deps.embedder.embed([text], [space])).get(space) ?? [];
    if (!vector) return [];
    const hits = (await this.deps.indexes.search(space, vector, opts.limit + 5)).filter((h) => h.key !== opts.excludeNid && h.similarity >= opts.minSimilarity);
    const rows = new Map((await nodesByNid(this.deps.db, hits.map((h) => h.key))).map((n) => [n.nid, n]));
    return hits
      .map((h) => ({ node: rows.get(h.key)!, similarity: h.similarity }))
      .filter((h) => h.node && h.node.deleted_at === null && h.node.project_id === opts.projectId)
      .slice(0, opts.limit);
  }

  private async lexical(text: string, limit: number, f: SearchFilters): Promise<{ key: number; score: number }[]> {
    const rows = await this.deps.db.query<{ nid: number; rank: number }>(
      `with q as (select ${orTsQuerySql('$1')} as tsq)
       select n.nid, ts_rank(n.tsv, q.tsq) as rank
         from nodes n, q
        where n.tsv @@ q.tsq and n.deleted_at is null
          and ($2::text is null or n.project_id = $2)
          and ($3::text is null or n.memory_type = $3)
          and ($4::text[] is null or n.tags && $4::text[])
          and ($5::timestamptz is null or n.created_at >= $5)
          and ($6::timestamptz is null or n.created_at <= $6)
        order by rank desc, n.nid
        limit $7`,
      [text, f.projectId ?? null, f.memoryType ?? null, f.tags?.length ? f.tags : null, f.timeRange?.start ?? null, f.timeRange?.end ?? null, limit],
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
