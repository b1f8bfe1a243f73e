import { spaceById } from '../embed/spaces/registry.js';
import type { SpaceId } from '../embed/types.js';
import type { VectorHit, VectorIndexes } from '../index/vector-index.js';
import type { Db } from '../store/db.js';
import { countMatchingNodes, matchingNodes, type FacetQuery } from '../store/facets-repo.js';

export interface SearchFilters {
  projectId?: string | undefined;
  /** A collection (namespace) inside the project(s): db/080, src/services/collections.ts. */
  collection?: string | undefined;
  memoryType?: string | undefined;
  /** Contains-any: a hit needs at least one of these tags. */
  tags?: readonly string[] | undefined;
  topic?: string | undefined;
  /** On created_at (when the memory was recorded). */
  timeRange?: { start?: Date | undefined; end?: Date | undefined } | undefined;
  /** Node kinds to leave out (named entities are graph vertices, not memories). */
  excludeKinds?: readonly string[] | undefined;
  /** Only these node kinds (e.g. seed 002's `tables`: phase, work, path, tide, pattern). */
  kinds?: readonly string[] | undefined;
}

/** One ranked list to fill: a space's index searched with the query's vector in that space. */
export interface SignalQuery {
  name: string;
  space: SpaceId;
  vector: Float32Array;
}

export interface Candidates {
  /** Per signal, in the order given: the best `want` hits that pass the filters, best first. */
  lists: VectorHit[][];
  /** How they were found (tests and diagnostics). */
  strategy: 'global' | 'among';
}

/**
 * How many allowed entries are still worth listing and scoring exactly, in a store of `indexed`
 * entries. Listing costs about 10 µs per allowed entry (the SQL rows dominate; PGlite on a
 * loaded 2-core machine), widening the global searches about 1.4 ms × N / allowed (the depth
 * needed grows as the filter's share shrinks); the two meet near √(140·N) ≈ 12·√N (1,200 at
 * 10k, 3,800 at 100k). Measured at 10k with 1,000 allowed: listing 14.5 ms p50 against
 * widening 18.9 ms (Postgres: 10.7 against 17.4).
 */
export function amongLimit(indexed: number): number {
  return Math.max(MIN_AMONG, Math.round(12 * Math.sqrt(indexed)));
}

/** Below this, listing is cheap whatever the store's size. */
const MIN_AMONG = 200;

export function hasFacetFilters(f: SearchFilters): boolean {
  return (
    f.projectId !== undefined ||
    f.collection !== undefined ||
    f.memoryType !== undefined ||
    Boolean(f.tags?.length) ||
    f.topic !== undefined ||
    Boolean(f.timeRange?.start || f.timeRange?.end) ||
    Boolean(f.kinds?.length)
  );
}

export function facetQuery(f: SearchFilters): FacetQuery {
  return { ...f, createdFrom: f.timeRange?.start, createdTo: f.timeRange?.end };
}

/** The topic comparison SQL only narrows (store/facets-repo.ts): case-insensitive, all of Unicode. */
export function topicMatches(topic: string | null, f: SearchFilters): boolean {
  return f.topic === undefined || (topic ?? '').toLowerCase() === f.topic.toLowerCase();
}

/**
 * The best `want` hits per signal among the entries the filters allow: what a search of a
 * store holding only those entries would rank (up to HNSW's approximation). A filter never
 * loses a match, however small its set is next to the rest of the store.
 *
 * 1. Search every index globally and drop what the filters reject (one SQL check of the new
 *    candidates' facets). Done when each list has `want` survivors or its index ran out of
 *    hits: the common case for broad filters and for none.
 * 2. Otherwise the filter is selective. Count in SQL the entries it allows (up to amongLimit
 *    + 1): when they are few, list them, and every index scores exactly those (`among`), which
 *    is exact for BM25 and exact up to int8 rounding for dense spaces, whatever the size of the
 *    rest of the store.
 * 3. When they are many, widen each unfilled global search (by the depth its survival rate
 *    so far suggests, 2–16×) and filter again, until each list is full or its index is
 *    exhausted (a dense index asked for all it holds scans them all: src/index/kinds/dense.ts).
 */
export async function filteredCandidates(
  deps: { db: Db; indexes: Pick<VectorIndexes, 'search' | 'sizes'> },
  signals: readonly SignalQuery[],
  filters: SearchFilters,
  want: number,
  opts: {
    /** Overrides amongLimit (tests lower it to reach the widening path on a small store). */
    amongMax?: number | undefined;
    /** Verdicts the caller already has (key → passes the filters): not asked of SQL again. */
    known?: ReadonlyMap<number, boolean> | undefined;
  } = {},
): Promise<Candidates> {
  // Verdict per candidate key, kept across widening rounds.
  const verdict = new Map<number, boolean>(opts.known);
  const lists: VectorHit[][] = signals.map(() => []);
  const open = new Set(signals.map((_, i) => i));
  const selective = hasFacetFilters(filters);
  // A filter drops some hits; fetch more from the start so one round usually does.
  const depth = signals.map(() => (selective ? want * 2 : want));
  let askedSql = false;
  // A sparse (inverted) index returns every match it has, so a short answer means exhausted. An
  // HNSW graph may return fewer than asked while holding more (identical vectors crowd each
  // other out), so a dense list is exhausted only once asked for all it holds (an exact scan).
  // Asked together with the first searches: the index thread answers both in one wait.
  const sizesAsked = deps.indexes.sizes(signals.map((s) => s.space));
  let sizes: Awaited<typeof sizesAsked> = {};
  const exhausted = (i: number, returned: number) => (spaceById(signals[i]!.space).index === 'sparse' ? returned < depth[i]! : depth[i]! >= (sizes[signals[i]!.space] ?? 0));
  for (;;) {
    const [rounds, known] = await Promise.all([
      Promise.all([...open].map(async (i) => ({ i, hits: await deps.indexes.search(signals[i]!.space, signals[i]!.vector, depth[i]!) }))),
      sizesAsked,
    ]);
    sizes = known;
    const unknown = [...new Set(rounds.flatMap((r) => r.hits.map((h) => h.key)))].filter((key) => !verdict.has(key));
    for (const key of unknown) verdict.set(key, false);
    for (const row of await matchingNodes(deps.db, facetQuery(filters), unknown)) verdict.set(row.nid, topicMatches(row.topic, filters));
    for (const { i, hits } of rounds) {
      const kept = hits.filter((h) => verdict.get(h.key));
      lists[i] = kept.slice(0, want);
      if (kept.length >= want || exhausted(i, hits.length)) open.delete(i);
      // Twice the depth the survival rate so far suggests: one more round, not several.
      else depth[i] = Math.ceil(depth[i]! * Math.min(16, Math.max(2, (2 * want) / Math.max(1, kept.length))));
    }
    if (open.size === 0) return { lists, strategy: 'global' };
    if (selective && !askedSql) {
      askedSql = true;
      const limit = opts.amongMax ?? amongLimit(Math.max(0, ...Object.values(sizes)));
      const among = await allowedEntries(deps.db, filters, limit);
      if (among) return { lists: await searchAmong(deps.indexes, signals, among, want), strategy: 'among' };
    }
  }
}

/**
 * Each signal's best `want` hits in the whole store, unchecked: what filteredCandidates answers
 * for a search without facet filters (only liveness and kind exclusions apply) when every hit
 * passes, which is nearly always, since the indexes follow deletions within moments. The caller
 * checks the keys later in a statement it makes anyway (the search's neighbour probe) and falls
 * back to filteredCandidates, with the verdicts it learnt, when one fails.
 */
export async function unfilteredCandidates(indexes: Pick<VectorIndexes, 'search'>, signals: readonly SignalQuery[], want: number): Promise<VectorHit[][]> {
  return Promise.all(signals.map((s) => indexes.search(s.space, s.vector, want)));
}

/**
 * Nids the filters allow when there are at most `limit` of them, else null. Counting first (up
 * to limit + 1) costs a fraction of listing when the set turns out large.
 */
async function allowedEntries(db: Db, f: SearchFilters, limit: number): Promise<number[] | null> {
  if ((await countMatchingNodes(db, facetQuery(f), limit + 1)) > limit) return null;
  const rows = await matchingNodes(db, facetQuery(f));
  return rows.filter((r) => topicMatches(r.topic, f)).map((r) => r.nid);
}

async function searchAmong(indexes: Pick<VectorIndexes, 'search'>, signals: readonly SignalQuery[], among: number[], want: number): Promise<VectorHit[][]> {
  if (among.length === 0) return signals.map(() => []);
  return Promise.all(signals.map((s) => indexes.search(s.space, s.vector, want, { among })));
}
