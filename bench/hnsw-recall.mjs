// E9's HNSW settings against exact cosine: recall@10 and add time per expansion_add and
// storage, on the bench corpus's E9 vectors (what its hnswExpansionAdd comment cites):
//   node bench/hnsw-recall.mjs <checkout> [memories=10000] [queries=300]
// Half the queries are stored vectors slightly moved (near duplicates), half short prefixes of
// other texts (typo-tolerant lookups). One add thread, so add times compare across settings.
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import usearch from 'usearch';

const { Index, MetricKind, ScalarKind } = usearch;
const [root, nArg, qArg] = process.argv.slice(2);
if (!root) throw new Error('usage: node bench/hnsw-recall.mjs <checkout> [memories] [queries]');
const N = Number(nArg ?? 10_000);
const Q = Number(qArg ?? 300);
const K = 10;
const { hdcEmbed, HDC_DIM } = await import(join(root, 'dist/src/embed/hdc.js'));
const { makeCorpus } = await import(join(root, 'dist/bench/corpus.js'));

const vectors = makeCorpus(N, 42).map((m) => hdcEmbed(`${m.topic}\n${m.content}`));
const queries = makeCorpus(Q, 7).map((m, i) => (i % 2 ? hdcEmbed(m.content.slice(0, 60)) : vectors[(i * 13) % N].map((x, j) => x + (j % 7 === 0 ? 0.02 : 0))));
const dot = (a, b) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};
const truth = queries.map((q) =>
  vectors
    .map((v, i) => [dot(q, v), i])
    .sort((a, b) => b[0] - a[0])
    .slice(0, K)
    .map(([, i]) => i),
);
const flat = new Float32Array(N * HDC_DIM);
vectors.forEach((v, i) => flat.set(v, i * HDC_DIM));
const keys = BigUint64Array.from({ length: N }, (_, i) => BigInt(i + 1));

for (const [storage, expansionAdd] of [
  ['f16', 128],
  ['f16', 64],
  ['f16', 32],
  ['i8', 128],
]) {
  const index = new Index({
    dimensions: HDC_DIM,
    metric: MetricKind.Cos,
    quantization: storage === 'i8' ? ScalarKind.I8 : ScalarKind.F16,
    connectivity: 16,
    expansion_add: expansionAdd,
    expansion_search: 128,
    multi: false,
  });
  const t = performance.now();
  index.add(keys, flat, 1);
  const addMs = performance.now() - t;
  let found = 0;
  queries.forEach((q, qi) => {
    const want = new Set(truth[qi]);
    for (const key of index.search(q, K, 1).keys) if (want.has(Number(key) - 1)) found++;
  });
  console.log(JSON.stringify({ storage, expansion_add: expansionAdd, recall_at_10: +(found / (Q * K)).toFixed(3), add_ms: Math.round(addMs) }));
}
