import type { Logger } from '../log.js';
import type { Embedder } from '../embed/embedder.js';
import { keywordEmbed, unpackTerms } from '../embed/keyword.js';
import { LEXICAL_SIGNAL, LEXICAL_SPACE, signalWeights, spaceById } from '../embed/spaces/registry.js';
import type { SpaceId } from '../embed/types.js';
import type { VectorHit, VectorIndexes } from '../index/vector-index.js';
import type { Db } from '../store/db.js';
import type { PendingVectors } from './pending-vectors.js';
import { nodesByNid, type NodeRecord } from '../store/nodes-repo.js';
import { filteredCandidates, hasFacetFilters, unfilteredCandidates, type SearchFilters, type SignalQuery } from './candidates.js';
import { cueFactor, isWhenQuestion, questionWords, withNeighbours } from './context-ranking.js';
import { fuseScores, matchStrength, MAXSIM_FLOOR, MAXSIM_RAMP, type RankedSignal, type Yardstick } from './fusion.js';
import { mmrOrder } from './mmr.js';
import { duplicateVector, nearDuplicatesOf, type NearDuplicate, type NearDuplicateQuery } from './near-duplicates.js';
import { bm25Scale, queryTermStats } from './query-weights.js';

export { hasFacetFilters, type SearchFilters } from './candidates.js';
export { LEXICAL_SPACE } from '../embed/spaces/registry.js';

export interface HybridQuery extends SearchFilters {
  text: string;
  limit: number;
  /** Minimum score (see HybridHit.score) in (0, 1]; 0 keeps everything. */
  scoreThreshold?: number | undefined;
  /**
   * Partial results as the search goes (a streaming client shows them): each space's candidate
   * count as it completes, then the fused ranking's best ids. `done` counts steps of `total`.
   */
  onProgress?: ((done: number, total: number, message: string) => Promise<void>) | undefined;
  /** Fusion weight per signal, replacing SIGNAL_WEIGHTS for this query (profiles, bench ablations). */
  weights?: Readonly<Record<string, number>> | undefined;
}

/**
 * What the learning signals (src/services/signals/) set for every search, read from their
 * in-memory cache (never a DB read per query): the fusion weights (SIGNAL_WEIGHTS scaled by each
 * space's Kuramoto sync, used when a query names no weights) and MMR λ (noradrenaline; 1 = off).
 */
export interface RetrievalDynamics {
  fusionWeights(now: number): Readonly<Record<string, number>>;
  diversity(now: number): number;
}

export interface SignalScore {
  rank: number;
  score: number;
}

export interface HybridHit {
  node: NodeRecord;
  /**
   * Relevance estimate in [0, 1]: the best hit scores how strongly it matches the query by raw
   * signal values (fusion.ts matchStrength: BM25 of E13 and E6 against the query's own
   * yardstick, cosine and MaxSim on absolute ramps), the others in proportion to their rank score (fusion, neighbours, time cue,
   * staleness). Unrelated memories score near 0 whatever their rank.
   */
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
  /**
   * Each signal's own best candidates (nids, up to SIGNAL_TOP), in its order: what the retrieval
   * log keeps to measure how each space agrees with the fused ranking.
   */
  signalTop: Record<string, number[]>;
}

/** Candidates per signal kept in HybridResult.signalTop. */
export const SIGNAL_TOP = 10;

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

/** Hits read with their content before the final order: at least this many, else twice the limit. */
const MIN_WINDOW = 10;

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
 * Sends the lexical signal's first search now and answers it from `indexes` when
 * filteredCandidates asks exactly that search (same vector, depth, no `among`) once; any other
 * search goes to the index thread as usual. A query with no keyword terms sends nothing.
 */
function earlyLexical(indexes: VectorIndexes, vector: Float32Array, depth: number): { vector: Float32Array; indexes: Pick<VectorIndexes, 'search' | 'sizes'> } {
  let sent = vector.length > 0 ? indexes.search(LEXICAL_SPACE, vector, depth) : null;
  // Not awaited until asked for: a failure surfaces there, not as an unhandled rejection.
  sent?.catch(() => undefined);
  return {
    vector,
    indexes: {
      sizes: (only) => indexes.sizes(only),
      search(space, query, k, opts) {
        if (sent && space === LEXICAL_SPACE && query === vector && k === depth && !opts?.among) {
          const hits = sent;
          sent = null;
          return hits;
        }
        return indexes.search(space, query, k, opts);
      },
    },
  };
}

/** `rows` plus the rows of those `nids` it lacks (one statement when any are missing). */
async function withRows(db: Db, rows: Map<number, NodeRecord>, nids: readonly number[]): Promise<Map<number, NodeRecord>> {
  const missing = nids.filter((nid) => !rows.has(nid));
  for (const n of await nodesByNid(db, missing)) rows.set(n.nid, n);
  return rows;
}

/**
 * Hybrid retrieval: one ranked list per enabled space with a fusion weight (BM25 over E13,
 * k-NN in each dense space, the E1 query weighted by live IDF: query-weights.ts), each holding
 * only entries the filters allow (candidates.ts), fused by a weighted sum of normalised scores
 * (fusion.ts), re-ranked with the conversation around the hits (context-ranking.ts), scored by
 * match strength and thresholded.
 */
export class SearchService {
  constructor(
    private readonly deps: {
      db: Db;
      embedder: Embedder;
      indexes: VectorIndexes;
      logger?: Logger | undefined;
      dynamics?: RetrievalDynamics | undefined;
      /** Stores that answered before their vectors: a search waits for them, so it finds what was stored before it. */
      pending?: PendingVectors | undefined;
    },
  ) {}

  async hybrid(q: HybridQuery): Promise<HybridResult> {
    const inFlight = this.deps.pending?.settled();
    if (inFlight) await inFlight;
    const now = Date.now();
    const weights = q.weights ?? this.deps.dynamics?.fusionWeights(now) ?? SIGNAL_WEIGHTS;
    const want = Math.min(MAX_CANDIDATES, Math.max(MIN_CANDIDATES, q.limit * 10));
    const spaces = this.deps.embedder
      .encoders()
      .map((e) => spaceById(e.space))
      .filter((s) => (q.weights?.[s.signal] ?? (q.weights ? 0 : s.weight)) > 0);
    const lexical = spaces.some((s) => s.id === LEXICAL_SPACE);
    // The keyword index's live statistics weigh the query's words for E1 and scale lexical scores.
    const statsAsked = lexical ? queryTermStats(this.deps.indexes, q.text) : null;
    // The keyword query vector is a pure function of the text (the E13 encoder's own): built here,
    // its first BM25 search goes to the index thread right behind the term statistics (reads run
    // in arrival order) and runs while the embedding pool encodes the dense spaces, not after them.
    const early = lexical ? earlyLexical(this.deps.indexes, keywordEmbed(q.text), hasFacetFilters(q) ? want * 2 : want) : null;
    const stats = statsAsked ? await statsAsked : null;
    // One embedding round trip for every dense signal; their index searches then run together.
    const dense = spaces.filter((s) => s.id !== LEXICAL_SPACE);
    const vectors =
      dense.length > 0
        ? await this.deps.embedder.embed(
            [q.text],
            dense.map((s) => s.id),
            stats ? { wordWeights: stats.wordWeights } : {},
          )
        : new Map<SpaceId, Float32Array[]>();
    if (early) vectors.set(LEXICAL_SPACE, [early.vector]);
    const signals: SignalQuery[] = spaces.flatMap((s) => {
      const vector = vectors.get(s.id)?.[0];
      // A sparse query with no terms (only stop words) finds nothing in its space.
      return vector && vector.length > 0 ? [{ name: s.signal, space: s.id, vector }] : [];
    });
    // What each signal's raw score is measured against (matchStrength): a sparse space other than
    // the lexical one gets its own BM25 yardstick from its live IDFs (asked now, answered while
    // the candidates are searched), late interaction its MaxSim ramp, dense spaces the cosine ramp.
    const yardsticksAsked = Promise.all(
      signals.map(async (s): Promise<[string, Yardstick] | null> => {
        const kind = spaceById(s.space).index;
        if (kind === 'multi') return [s.name, MAXSIM_RAMP];
        if (kind !== 'sparse' || s.space === LEXICAL_SPACE) return null;
        // With the candidate searches issued right below: one message to the index thread, not two.
        return [s.name, { kind: 'bm25', scale: bm25Scale(await this.deps.indexes.termIdf(s.space, [...unpackTerms(s.vector).ids], { withReads: true })) }];
      }),
    );
    // Awaited after the candidates: a failure surfaces there, not as an unhandled rejection.
    yardsticksAsked.catch(() => undefined);
    // Late-interaction spaces (E12, index kind multi) rerank the fused candidates; the others generate them.
    const generators = signals.filter((s) => spaceById(s.space).index !== 'multi');
    const rerankers = signals.filter((s) => spaceById(s.space).index === 'multi');
    const indexes = early?.indexes ?? this.deps.indexes;
    const windowSize = Math.max(MIN_WINDOW, q.limit * 2);
    const rank = async (lists: VectorHit[][], verify: Iterable<number> = []) => {
      const ranked0: RankedSignal[] = generators.map((s, i) => ({ name: s.name, weight: weights[s.name] ?? 0, hits: lists[i]!.map((h) => ({ key: h.key, score: h.similarity })) }));
      let fused = fuseScores(ranked0, LEXICAL_SIGNAL);
      const reranked: VectorHit[][] = [];
      if (rerankers.length > 0 && fused.length > 0) {
        const among = fused.slice(0, want).map((f) => f.key);
        for (const s of rerankers) {
          const hits = await this.deps.indexes.search(s.space, s.vector, among.length, { among });
          reranked.push(hits);
          ranked0.push({ name: s.name, weight: weights[s.name] ?? 0, hits: hits.map((h) => ({ key: h.key, score: h.similarity })), floor: MAXSIM_FLOOR });
        }
        fused = fuseScores(ranked0, LEXICAL_SIGNAL);
      }
      // The neighbour probe also reads the rows of the fused window (most hits shown come from it)
      // and checks the candidates no statement has checked yet.
      const context = await withNeighbours(
        this.deps.db,
        fused,
        q,
        q.limit,
        fused.slice(0, windowSize).map((f) => f.key),
        verify,
      );
      return { fused, reranked, ...context };
    };
    // Without facet filters nearly every candidate passes (only a deletion the indexes have not
    // applied yet or an excluded kind fails): rank them unchecked and check them in the neighbour
    // probe, one statement instead of two. When one fails, rank again from the checked lists.
    let lists: VectorHit[][];
    let ranking: Awaited<ReturnType<typeof rank>>;
    if (hasFacetFilters(q)) {
      ({ lists } = await filteredCandidates({ db: this.deps.db, indexes }, generators, q, want));
      ranking = await rank(lists);
    } else {
      lists = await unfilteredCandidates(indexes, generators, want);
      const unchecked = new Set(lists.flatMap((l) => l.map((h) => h.key)));
      ranking = await rank(lists, unchecked);
      if ([...unchecked].some((key) => !ranking.passed.has(key))) {
        const known = new Map([...unchecked].map((key) => [key, ranking.passed.has(key)]));
        ({ lists } = await filteredCandidates({ db: this.deps.db, indexes: this.deps.indexes }, generators, q, want, { known }));
        ranking = await rank(lists);
      }
    }
    const { fused, ranked, rows: prefetched } = ranking;
    const steps = signals.length + 1;
    for (const [i, s] of generators.entries()) await q.onProgress?.(i + 1, steps, `${s.name}: ${lists[i]!.length} candidates`);
    // A reranker has nothing to rerank when no generator found anything.
    const named = [...generators, ...rerankers.slice(0, ranking.reranked.length)];
    for (const [i, hits] of ranking.reranked.entries()) await q.onProgress?.(generators.length + i + 1, steps, `${rerankers[i]!.name}: ${hits.length} reranked`);
    const listed = [...lists, ...ranking.reranked];
    // Fused scores rank; how strongly the best candidate matches (raw signal values) sets what
    // the scores are worth, so unrelated memories score near 0 and the threshold removes them.
    const yardsticks: Record<string, Yardstick> = Object.fromEntries((await yardsticksAsked).filter((y) => y !== null));
    yardsticks[LEXICAL_SIGNAL] = { kind: 'bm25', scale: stats?.lexicalScale ?? 0 };
    const confidence = fused.reduce((best, f) => Math.max(best, matchStrength(f.signals, yardsticks)), 0);
    // Twice the limit is read so that a stale fact pushed down (or a memory lifted by what its
    // text says: a time for a "when" question, a speaker the question names) can trade places.
    const window = ranked.slice(0, windowSize);
    // Only the hits need their (possibly 64 KB) content: a neighbour lifted into the window is read now.
    const rows = await withRows(
      this.deps.db,
      prefetched,
      window.map((f) => f.key),
    );
    const question = { when: isWhenQuestion(q.text), words: questionWords(q.text) };
    const adjusted = window
      .flatMap((f) => {
        const node = rows.get(f.key);
        // A quarantined memory (quarantine_node) stays readable by id but is not served by search.
        if (!node || node.metadata.quarantine !== undefined) return [];
        const factor = (isStale(node, now) ? STALE_FACTOR : 1) * cueFactor(question, node.content);
        return [{ node, score: f.score * factor, signals: f.signals }];
      })
      .sort((a, b) => b.score - a.score || a.node.nid - b.node.nid);
    const top = adjusted[0]?.score ?? ranked[0]?.score ?? 0;
    const scale = top > 0 ? confidence / top : 0;
    const threshold = q.scoreThreshold ?? 0;
    const kept = adjusted.map((h) => ({ ...h, score: Math.min(1, h.score * scale) })).filter((h) => h.score >= threshold);
    // Noradrenaline above its baseline trades relevance for diversity (MMR); at baseline λ = 1.
    const lambda = this.deps.dynamics?.diversity(now) ?? 1;
    const hits = lambda < 1 ? mmrOrder(kept, (h) => h.node.content, lambda, q.limit) : kept.slice(0, q.limit);
    const matched = fused.filter((f) => f.signals[LEXICAL_SIGNAL] && f.score * scale >= threshold).length;
    await q.onProgress?.(
      steps,
      steps,
      `fused: ${hits.length} hits${
        hits.length
          ? ` (best ${hits
              .slice(0, 5)
              .map((h) => h.node.id)
              .join(', ')})`
          : ''
      }`,
    );
    // What was asked and found, for "why don't you remember X?" (get_system_logs, component retrieval).
    this.deps.logger?.debug({ query: q.text.slice(0, 120), project: q.projectId ?? null, hits: hits.length, best: hits[0]?.node.id ?? null, threshold }, 'search ran');
    const signalTop = Object.fromEntries(named.map((s, i) => [s.name, listed[i]!.slice(0, SIGNAL_TOP).map((h) => h.key)]));
    return { hits, matched, signalTop };
  }

  /** The E1 vector near duplicates are judged by (null without an E1 encoder). */
  duplicateVector(text: string): Promise<Float32Array | null> {
    return duplicateVector(this.deps, text);
  }

  /** Near duplicates of an E1 vector within one project (and collection): what `store` reports as possible_duplicates. */
  nearDuplicatesOf(vector: Float32Array, opts: NearDuplicateQuery): Promise<NearDuplicate[]> {
    return nearDuplicatesOf(this.deps, vector, opts);
  }
}
