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

/**
 * Weight variants of the default fusion to score side by side with it, from
 * CG_BENCH_VARIANTS="E6=0,E12=0;E6=0.5,E12=0.5" (semicolons between variants, each a list of
 * signal=weight overriding the defaults): one system per variant, named `fused[E6=0,E12=0]`.
 */
export function weightVariants(): Array<{ name: string; weights: Record<string, number> }> {
  const spec = process.env.CG_BENCH_VARIANTS?.trim();
  if (!spec) return [];
  return spec.split(';').map((variant) => {
    const weights: Record<string, number> = {};
    for (const pair of variant.split(',')) {
      const [signal, value] = pair.split('=').map((x) => x.trim());
      const w = Number(value);
      if (!signal || value === undefined || !Number.isFinite(w) || w < 0) throw new Error(`CG_BENCH_VARIANTS: "${pair}" is not signal=weight (weight ≥ 0)`);
      weights[signal] = w;
    }
    return { name: `fused[${variant.replace(/\s+/g, '')}]`, weights };
  });
}
