// A dense space's HNSW settings against exact cosine: recall@10 and add time per expansion_add and
// storage, on the bench corpus's vectors in that space (what a space's hnswExpansionAdd comment
// cites):
//   node bench/hnsw-recall.mjs <checkout> [memories=10000] [queries=300] [space=E9]
// Half the queries are stored vectors slightly moved (near duplicates), half the vectors of short
// prefixes of other texts. E2-E4 encode the memories' times and positions: spread over two years
// (seeded), one after another. One add thread, so add times compare across settings.
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import usearch from 'usearch';

const { Index, MetricKind, ScalarKind } = usearch;
const [root, nArg, qArg, space = 'E9'] = process.argv.slice(2);
if (!root) throw new Error('usage: node bench/hnsw-recall.mjs <checkout> [memories] [queries] [space]');
const N = Number(nArg ?? 10_000);
const Q = Number(qArg ?? 300);
const K = 10;
const { makeCorpus } = await import(join(root, 'dist/bench/corpus.js'));
const { createEmbedder } = await import(join(root, 'dist/src/embed/pool.js'));
const { createLogger } = await import(join(root, 'dist/src/log.js'));

const embedder = await createEmbedder({ logger: createLogger('silent'), threads: 1 });
const TWO_YEARS = 2 * 365 * 86_400_000;
let seed = 20261128;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const embed = async (texts) => {
  const items = texts.map((_, i) => ({ at: Date.UTC(2026, 10, 28) - Math.floor(random() * TWO_YEARS), position: i }));
  return (await embedder.embed(texts, [space], { items })).get(space);
};
const vectors = await embed(makeCorpus(N, 42).map((m) => `${m.topic}\n${m.content}`));
const others = await embed(makeCorpus(Q, 7).map((m) => m.content.slice(0, 60)));
await embedder.close();
const DIM = vectors[0].length;
if (!DIM) throw new Error(`${space} is not a dense space`);
const queries = others.map((v, i) => (i % 2 ? v : vectors[(i * 13) % N].map((x, j) => x + (j % 7 === 0 ? 0.02 : 0))));
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
const flat = new Float32Array(N * DIM);
vectors.forEach((v, i) => flat.set(v, i * DIM));
const keys = BigUint64Array.from({ length: N }, (_, i) => BigInt(i + 1));

for (const [storage, expansionAdd] of [
  ['f16', 128],
  ['f16', 64],
  ['f16', 32],
  ['i8', 128],
]) {
  const index = new Index({
    dimensions: DIM,
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
  console.log(JSON.stringify({ space, storage, expansion_add: expansionAdd, recall_at_10: +(found / (Q * K)).toFixed(3), add_ms: Math.round(addMs) }));
}
