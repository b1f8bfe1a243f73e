/**
 * Each retrieval signal on its own, for quality and latency comparisons: the lexical signal as
 * SearchService runs it (BM25 over the E13 keyword index in the index thread) and one dense
 * space's k-NN on the app's indexes.
 */
import type { App } from '../src/app.js';
import type { SpaceId } from '../src/embed/types.js';
import { lexicalSearch } from '../src/services/search.js';

/** Lexical candidates, ranked as SearchService ranks them (E13 BM25). */
export async function lexicalOnly(app: App, text: string, limit: number): Promise<number[]> {
  return (await lexicalSearch(app.embedder, app.indexes, text, limit)).map((h) => h.key);
}

/** Nearest neighbours in one embedding space (the query embedded by the app's pool). */
export async function denseOnly(app: App, space: SpaceId, text: string, limit: number): Promise<number[]> {
  const vectors = await app.embedder.embed([text], [space]);
  const v = vectors.get(space)?.[0];
  if (!v) return [];
  return (await app.indexes.search(space, v, limit)).map((h) => h.key);
}

/** Hybrid search as the `query` tool runs it. */
export async function hybrid(app: App, text: string, limit: number): Promise<number[]> {
  return (await app.services.search.hybrid({ text, limit })).hits.map((h) => h.node.nid);
}
