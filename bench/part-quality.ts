/**
 * Part `quality`: the generated labelled set (bench/quality/generate.ts) loaded into a fresh
 * embedded app, then every query run through: hybrid search, lexical alone, each dense space
 * alone, and the BM25 baseline library over the same documents in this process.
 */
import { signalWeights, spaceById } from '../src/embed/spaces/registry.js';
import type { SpaceId } from '../src/embed/types.js';
import { tempDir } from '../test/helpers/cli.js';
import { openBenchApp } from './app.js';
import { log } from './env.js';
import { bulkLoad } from './load.js';
import { round4, scoreRuns, type QualityScores } from './metrics.js';
import { buildBm25 } from './quality/bm25.js';
import { makeQualitySet, type QueryCategory } from './quality/generate.js';
import { denseOnly, hybrid, lexicalOnly, weightVariants } from './signals.js';

export interface QualityResult {
  seed: number;
  set: { memories: number; queries: number; by_category: Record<string, number>; today: string; distractors: number };
  loaded_by: string;
  e1_provider: string;
  bm25_stemmed: boolean;
  systems: Record<string, { overall: QualityScores; by_category: Record<string, QualityScores> }>;
  /** hybrid / BM25 for each metric (> 1 means hybrid is better). */
  hybrid_over_bm25: Record<string, number | null>;
  hybrid_beats_bm25_at_every_k: boolean;
}

const DEPTH = 25;
const PROBES = process.env.CG_BENCH_PROBES ? new Set(process.env.CG_BENCH_PROBES.split(',')) : null;

export async function runQuality(opts: { seed: number; distractors: number; perCategory: number; modelDir?: string | null }): Promise<QualityResult> {
  const set = makeQualitySet(opts.seed, { distractors: opts.distractors, perCategory: opts.perCategory });
  log(`quality: ${set.memories.length} memories, ${set.queries.length} queries (seed ${opts.seed})`);
  const dir = await tempDir('cg-bench-quality-');
  const app = await openBenchApp(dir.path, opts.modelDir);
  try {
    const loaded = await bulkLoad(app, set.memories, { onProgress: (d) => d % 1000 === 0 && log(`quality: loaded ${d}`) });
    const keyOfNid = new Map<number, string>();
    loaded.nids.forEach((nid, i) => keyOfNid.set(nid, set.memories[i]!.key));
    const toKeys = (nids: number[]) => nids.map((n) => keyOfNid.get(n) ?? `nid:${n}`);

    const bm25 = buildBm25(set.memories);
    const spaces = app.embedder.encoders().map((e) => e.space as SpaceId);
    const defaults = signalWeights();
    const probes = spaces.map(spaceById).filter((s) => (defaults[s.signal] ?? 0) === 0 && (!PROBES || PROBES.has(s.id)));
    const fusedWith = (extra: Record<string, number>) => async (q: string) =>
      toKeys((await app.services.search.hybrid({ text: q, limit: DEPTH, weights: { ...defaults, ...extra } })).hits.map((h) => h.node.nid));
    const systems: Array<{ name: string; run: (q: string) => Promise<string[]> }> = [
      { name: 'hybrid', run: async (q) => toKeys(await hybrid(app, q, DEPTH)) },
      { name: 'lexical', run: async (q) => toKeys(await lexicalOnly(app, q, DEPTH)) },
      ...spaces.map((space) => ({ name: `${space}_only`, run: async (q: string) => toKeys(await denseOnly(app, space, q, DEPTH)) })),
      { name: 'bm25_wink', run: async (q) => bm25.search(q, DEPTH) },
      // Each unweighted space added to the default fusion at 0.3, as part-locomo does (CG_BENCH_PROBES narrows).
      ...probes.map((s) => ({ name: `fused+${s.id}@0.3`, run: fusedWith({ [s.signal]: 0.3 }) })),
      ...(probes.length > 1 ? [{ name: 'fused+all@0.3', run: fusedWith(Object.fromEntries(probes.map((s) => [s.signal, 0.3]))) }] : []),
      // The default fusion with some weights changed (CG_BENCH_VARIANTS), as part-locomo does.
      ...weightVariants().map((v) => ({ name: v.name, run: fusedWith(v.weights) })),
    ];
    const out: QualityResult['systems'] = {};
    for (const sys of systems) {
      const runs: Array<{ category: QueryCategory; ranked: string[]; relevant: Map<string, number> }> = [];
      for (const q of set.queries) runs.push({ category: q.category, ranked: await sys.run(q.text), relevant: new Map(Object.entries(q.relevant)) });
      const byCategory: Record<string, QualityScores> = {};
      for (const c of [...new Set(runs.map((r) => r.category))]) byCategory[c] = scoreRuns(runs.filter((r) => r.category === c));
      out[sys.name] = { overall: scoreRuns(runs), by_category: byCategory };
      log(`quality: ${sys.name} nDCG@10 ${out[sys.name]!.overall.ndcg_at_10} recall@10 ${out[sys.name]!.overall.recall_at_10}`);
    }
    const h = out.hybrid!.overall;
    const b = out.bm25_wink!.overall;
    const keys = ['recall_at_5', 'recall_at_10', 'recall_at_25', 'mrr', 'ndcg_at_10'] as const;
    const ratios = Object.fromEntries(keys.map((k) => [k, b[k] === 0 ? null : round4(h[k] / b[k])]));
    const byCat: Record<string, number> = {};
    for (const q of set.queries) byCat[q.category] = (byCat[q.category] ?? 0) + 1;
    return {
      seed: opts.seed,
      set: { memories: set.memories.length, queries: set.queries.length, by_category: byCat, today: set.today, distractors: opts.distractors },
      loaded_by: loaded.path,
      e1_provider: app.embedder.encoders().find((e) => e.space === 'E1')?.provider ?? 'none',
      bm25_stemmed: bm25.stemmed,
      systems: out,
      hybrid_over_bm25: ratios,
      hybrid_beats_bm25_at_every_k: h.recall_at_5 > b.recall_at_5 && h.recall_at_10 > b.recall_at_10 && h.recall_at_25 > b.recall_at_25,
    };
  } finally {
    await app.close();
    await dir.remove();
  }
}
