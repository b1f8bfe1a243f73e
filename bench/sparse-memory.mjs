// Memory of one BM25 index (the E13 keyword space) as the store grows, without the rest of the
// server, so a size past what the full bench loads in its time budget (1M) can be measured:
//   node --expose-gc bench/sparse-memory.mjs <checkout with dist/> [memories=1000000] [seed=42]
// Feeds the bench corpus's E13 vectors into a SparseIndex in batches, and at each checkpoint
// prints the V8 heap and the external (ArrayBuffer) bytes it holds, per memory, after a full GC,
// and the time of one search over it. The index thread holds four such spaces (E6, E7, E11, E13)
// next to the dense ones; its V8 heap limit is node's default (~4.3 GB on this 24 GB machine).
/* global gc, performance */
import { join } from 'node:path';

const [root, nArg, seedArg] = process.argv.slice(2);
if (!root || typeof gc !== 'function') throw new Error('usage: node --expose-gc bench/sparse-memory.mjs <checkout> [memories] [seed]');
const n = Number(nArg ?? 1_000_000);
const seed = Number(seedArg ?? 42);
const from = (p) => import(join(root, 'dist', p));
const { SparseIndex } = await from('src/index/sparse.js');
const { keywordEmbed, unpackTerms } = await from('src/embed/keyword.js');
const { makeCorpus, makeQueries } = await from('bench/corpus.js');

const used = () => {
  gc();
  gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, external: m.external };
};
const base = used();
const index = new SparseIndex();
const checkpoints = new Set([100_000, 250_000, 500_000, 1_000_000, n].filter((c) => c <= n));
const batch = 50_000;
const query = unpackTerms(keywordEmbed(makeQueries(1, 7)[0])).ids;
const t0 = performance.now();
for (let done = 0; done < n;) {
  // The corpus generator is seeded per batch so a batch never holds more than `batch` texts.
  const size = Math.min(batch, n - done);
  for (const m of makeCorpus(size, seed + done)) {
    const { ids, weights } = unpackTerms(keywordEmbed(`${m.topic ?? ''} ${m.content}`));
    index.upsert(done++, ids, weights);
  }
  if (checkpoints.has(done)) {
    const u = used();
    const s0 = performance.now();
    index.search(query, 50);
    const searchMs = performance.now() - s0;
    console.log(
      JSON.stringify({
        root,
        memories: done,
        heap_mb: Math.round((u.heap - base.heap) / 2 ** 20),
        external_mb: Math.round((u.external - base.external) / 2 ** 20),
        heap_bytes_per_memory: Math.round((u.heap - base.heap) / done),
        external_bytes_per_memory: Math.round((u.external - base.external) / done),
        one_search_ms: Math.round(searchMs * 100) / 100,
        load_s: Math.round((performance.now() - t0) / 100) / 10,
      }),
    );
  }
}
