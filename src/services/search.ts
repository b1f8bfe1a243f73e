import type { Embedder } from '../embed/embedder.js';
import { LEXICAL_SIGNAL, LEXICAL_SPACE, signalWeights, spaceById } from '../embed/spaces/registry.js';
import type { SpaceId } from '../embed/types.js';
import type { VectorIndexes } from '../index/vector-index.js';
import type { Db } from '../store/db.js';
import { nodesByNid, type NodeRecord } from '../store/nodes-repo.js';
import { filteredCandidates, type SearchFilters, type SignalQuery } from './candidates.js';
import { fuseScores } from './fusion.js';

export { hasFacetFilters, type SearchFilters } from './candidates.js';
export { LEXICAL_SPACE } from '../embed/spaces/registry.js';

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
  /**
   * Per signal that found the hit: its rank among the entries the filters allow, and its raw
   * score (lexical: BM25; dense spaces: cosine similarity).
   */
  signals: Record<string, SignalScore>;
}

export interface HybridResult {
  hits: HybridHit[];
  /**
   * Candidates passing the filters that share terms with the query (found by the lexical BM25
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

/**
 * A fact that was superseded or whose validity ended still answers questions about the past, but
 * its replacement or a live fact should come first: its score is scaled by this.
 */
export const STALE_FACTOR = 0.5;

export function isStale(node: Pick<NodeRecord, 'metadata' | 'valid_to'>, now: number): boolean {
  return typeof node.metadata.superseded_by === 'string' || (node.valid_to !== null && node.valid_to.getTime() <= now);
}

/** Hits per signal that go into fusion: limit × 10, within these bounds. */
const MIN_CANDIDATES = 50;
const MAX_CANDIDATES = 500;

/**
 * The lexical signal: BM25 over the E13 keyword space, in the index thread. Any shared term
 * matches (OR semantics); a query with no terms (only stop words or symbols) finds nothing.
 * Unfiltered: the index holds every project.
 */
export async function lexicalSearch(embedder: Embedder, indexes: VectorIndexes, text: string, k: number): Promise<{ key: number; score: number }[]> {
  if (!embedder.encoders().some((e) => e.space === LEXICAL_SPACE)) return [];
  const query = (await embedder.embed([text], [LEXICAL_SPACE])).get(LEXICAL_SPACE)?.[0];
  if (!query || query.length === 0) return [];
  return (await indexes.search(LEXICAL_SPACE, query, k)).map((h) => ({ key: h.key, score: h.similarity }));
}

/**
 * Hybrid retrieval: one ranked list per enabled space with a fusion weight (BM25 over E13,
 * k-NN in each dense space), each holding only entries the filters allow (candidates.ts),
 * fused by a weighted sum of normalised scores (fusion.ts) and thresholded.
 */
export class SearchService {
  constructor(private readonly deps: { db: Db; embedder: Embedder; indexes: VectorIndexes }) {}

  async hybrid(q: HybridQuery): Promise<HybridResult> {
    const want = Math.min(MAX_CANDIDATES, Math.max(MIN_CANDIDATES, q.limit * 10));
    const spaces = this.deps.embedder
      .encoders()
      .map((e) => spaceById(e.space))
      .filter((s) => s.weight > 0);
    // One embedding round trip for every signal; the index searches then run together.
    const vectors =
      spaces.length > 0
        ? await this.deps.embedder.embed(
            [q.text],
            spaces.map((s) => s.id),
          )
        : new Map<SpaceId, Float32Array[]>();
    const signals: SignalQuery[] = spaces.flatMap((s) => {
      const vector = vectors.get(s.id)?.[0];
      // A sparse query with no terms (only stop words) finds nothing in its space.
      return vector && vector.length > 0 ? [{ name: s.signal, space: s.id, vector }] : [];
    });
    const { lists } = await filteredCandidates(this.deps, signals, q, want);
    const fused = fuseScores(
      signals.map((s, i) => ({ name: s.name, weight: SIGNAL_WEIGHTS[s.name] ?? 0, hits: lists[i]!.map((h) => ({ key: h.key, score: h.similarity })) })),
      LEXICAL_SIGNAL,
    );
    const threshold = q.scoreThreshold ?? 0;
    const candidates = fused.filter((f) => f.score >= threshold);
    const matched = candidates.filter((f) => f.signals[LEXICAL_SIGNAL]).length;
    // Twice the limit is read so that a stale fact pushed down can make room for what follows it.
    const kept = candidates.slice(0, q.limit * 2);
    // Only the hits need their (possibly 64 KB) content.
    const rows = new Map(
      (
        await nodesByNid(
          this.deps.db,
          kept.map((f) => f.key),
        )
      ).map((n) => [n.nid, n]),
    );
    const now = Date.now();
    const hits = kept
      .flatMap((f) => {
        const node = rows.get(f.key);
        return node ? [{ node, score: isStale(node, now) ? f.score * STALE_FACTOR : f.score, signals: f.signals }] : [];
      })
      .sort((a, b) => b.score - a.score || a.node.nid - b.node.nid)
      .slice(0, q.limit);
    return { hits, matched };
  }

  /**
   * Near duplicates of a text by E1 cosine within one project: what `store` reports as
   * possible_duplicates. Cheap (one embedding, one index probe), so it runs on every store.
   */
  async nearDuplicates(
    text: string,
    opts: { projectId: string; excludeNid: number; minSimilarity: number; limit: number },
  ): Promise<Array<{ node: NodeRecord; similarity: number }>> {
    const space: SpaceId = 'E1';
    if (!this.deps.embedder.encoders().some((e) => e.space === space)) return [];
    const [vector] = (await this.deps.embedder.embed([text], [space])).get(space) ?? [];
    if (!vector) return [];
    // One more than asked: the new node itself is usually its own nearest neighbour.
    const { lists } = await filteredCandidates(this.deps, [{ name: space, space, vector }], { projectId: opts.projectId }, opts.limit + 1);
    const hits = lists[0]!.filter((h) => h.key !== opts.excludeNid && h.similarity >= opts.minSimilarity).slice(0, opts.limit);
    const rows = new Map(
      (
        await nodesByNid(
          this.deps.db,
          hits.map((h) => h.key),
        )
      ).map((n) => [n.nid, n]),
    );
    return hits.flatMap((h) => {
      const node = rows.get(h.key);
      return node ? [{ node, similarity: h.similarity }] : [];
    });
  }
}
