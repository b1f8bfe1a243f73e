import type { Embedder } from '../embed/embedder.js';
import { LEXICAL_SPACE, signalWeights } from '../embed/spaces/registry.js';
import type { SpaceId } from '../embed/types.js';
import type { VectorIndexes } from '../index/vector-index.js';
import type { Db } from '../store/db.js';
import { nodeFacetsByNid, nodesByNid, type NodeFacets, type NodeRecord } from '../store/nodes-repo.js';
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
  /** Per signal that found the hit: its rank and raw score (lexical: BM25; dense spaces: cosine similarity). */
  signals: Record<string, SignalScore>;
}

export interface HybridResult {
  hits: HybridHit[];
  /**
   * Candidates passing the filters that share terms with the query (found by the E13 BM25
   * signal), before `limit`; a lower bound. Vector neighbours always exist, so they do not
   * count as matches.
   */
  matched: number;
}

/**
 * Fusion weight per signal, from the space definitions (src/embed/spaces/): the `lexical`
 * signal is E13's BM25 ranking, the others are named by their space id.
 */
export const SIGNAL_WEIGHTS: Readonly<Record<string, number>> = Object.freeze(signalWeights());

export { LEXICAL_SPACE };

const MIN_CANDIDATES = 50;
const MAX_CANDIDATES = 500;

function hasFilters(f: SearchFilters): boolean {
  return Boolean(f.projectId || f.memoryType || f.tags?.length || f.topic || f.timeRange?.start || f.timeRange?.end);
}

export function matchesFilters(node: NodeFacets, f: SearchFilters): boolean {
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
 * The lexical signal: BM25 over the E13 keyword space, in the index thread. Any shared term
 * matches (OR semantics); a query with no terms (only stop words or symbols) finds nothing.
 * The index holds every project: callers filter the fetched rows.
 */
export async function lexicalSearch(embedder: Embedder, indexes: VectorIndexes, text: string, k: number): Promise<{ key: number; score: number }[]> {
  if (!embedder.encoders().some((e) => e.space === LEXICAL_SPACE)) return [];
  const query = (await embedder.embed([text], [LEXICAL_SPACE])).get(LEXICAL_SPACE)?.[0];
  return lexicalHits(indexes, query, k);
}

async function lexicalHits(indexes: VectorIndexes, query: Float32Array | undefined, k: number): Promise<{ key: number; score: number }[]> {
  if (!query || query.length === 0) return [];
  return (await indexes.search(LEXICAL_SPACE, query, k)).map((h) => ({ key: h.key, score: h.similarity }));
}

/**
 * Hybrid retrieval: BM25 over the E13 keyword index (OR-tolerant) and one dense list per
 * enabled dense space, fused by weighted RRF, then filtered (project, type, tags, time,
 * tombstones) on the fetched rows and thresholded.
 */
export class SearchService {
  constructor(private readonly deps: { db: Db; embedder: Embedder; indexes: VectorIndexes }) {}

  async hybrid(q: HybridQuery): Promise<HybridResult> {
    // Vector indexes hold every project, so filtered searches look deeper before filtering.
    const depth = Math.min(MAX_CANDIDATES, Math.max(MIN_CANDIDATES, q.limit * (hasFilters(q) ? 20 : 10)));
    const encoders = this.deps.embedder.encoders();
    const spaces = encoders.filter((e) => e.dim > 0).map((e) => e.space);
    const withLexical = encoders.some((e) => e.space === LEXICAL_SPACE);
    // One embedding round trip for every signal; the index searches then run in parallel.
    const wanted: SpaceId[] = withLexical ? [...spaces, LEXICAL_SPACE] : spaces;
    const vectors = wanted.length > 0 ? await this.deps.embedder.embed([q.text], wanted) : new Map<SpaceId, Float32Array[]>();
    const [lexical, dense] = await Promise.all([
      lexicalHits(this.deps.indexes, vectors.get(LEXICAL_SPACE)?.[0], depth),
      this.dense(vectors, spaces, depth),
    ]);
    const fused = fuseRanks([{ name: 'lexical', weight: SIGNAL_WEIGHTS.lexical ?? 1, hits: lexical }, ...dense]);
    const threshold = q.scoreThreshold ?? 0;
    const candidates = fused.filter((f) => f.score >= threshold);
    // Filters need every candidate's fields but only the hits need their (possibly 64 KB) content.
    const facets = new Map((await nodeFacetsByNid(this.deps.db, candidates.map((f) => f.key))).map((n) => [n.nid, n]));
    const kept: typeof candidates = [];
    let matched = 0;
    for (const f of candidates) {
      const node = facets.get(f.key);
      if (!node || !matchesFilters(node, q)) continue;
      if (f.signals.lexical) matched++;
      if (kept.length < q.limit) kept.push(f);
    }
    const rows = new Map((await nodesByNid(this.deps.db, kept.map((f) => f.key))).map((n) => [n.nid, n]));
    const hits = kept.flatMap((f) => {
      const node = rows.get(f.key);
      return node ? [{ node, score: f.score, signals: f.signals }] : [];
    });
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

  private async dense(vectors: Map<SpaceId, Float32Array[]>, spaces: SpaceId[], k: number): Promise<RankedSignal[]> {
    if (spaces.length === 0) return [];
    return Promise.all(
      spaces.map(async (space) => {
        const vector = vectors.get(space)?.[0];
        const hits = vector ? await this.deps.indexes.search(space, vector, k) : [];
        return { name: space, weight: SIGNAL_WEIGHTS[space] ?? 0, hits: hits.map((h) => ({ key: h.key, score: h.similarity })) };
      }),
    );
  }
}
