/**
 * Part `index`: USearch with the production settings (workers/index.ts: cosine, f16,
 * connectivity 16, expansion_add 128) on two vector sets: the model-free E1 vectors of the
 * synthetic corpus, and low-rank vectors (32-d latent → 384-d + noise, the closest synthetic
 * stand-in for real sentence embeddings, stack-notes §4). Recall@10 against exact brute force
 * (usearch exactSearch, f32) on the same vectors, single-query QPS (one query per call, one
 * thread, as the app searches) at several expansion_search depths, add throughput, memory.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exactSearch, Index, MetricKind, ScalarKind } from 'usearch';
import { hashEmbed, HASH_DIM } from '../src/embed/hashing.js';
import { makeCorpus, makeQueries, mulberry32 } from './corpus.js';
import { log, rssOf } from './env.js';
import { overlapRecall, round4 } from './metrics.js';
import { repeated, type Repeated } from './stats.js';

export interface IndexDepthResult {
  expansion_search: number;
  recall_at_10: number;
  qps: Repeated;
}

export interface IndexDatasetResult {
  dataset: string;
  vectors: number;
  dim: number;
  queries: number;
  add_per_s: number;
  add_threads: number;
  rss_bytes_per_vector: number | null;
  file_bytes_per_vector: number;
  raw_f32_bytes_per_vector: number;
  depths: IndexDepthResult[];
}

function lowRank(n: number, dim: number, seed: number): Float32Array {
  const r = mulberry32(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(Math.max(r(), 1e-12))) * Math.cos(2 * Math.PI * r());
  const latent = 32;
  const proj = Float32Array.from({ length: latent * dim }, gauss);
  const out = new Float32Array(n * dim);
  const z = new Float32Array(latent);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < latent; j++) z[j] = gauss();
    let norm = 0;
    for (let d = 0; d < dim; d++) {
      let v = 0.3 * gauss();
      for (let j = 0; j < latent; j++) v += z[j]! * proj[j * dim + d]!;
      out[i * dim + d] = v;
      norm += v * v;
    }
    const inv = 1 / Math.sqrt(norm);
    for (let d = 0; d < dim; d++) out[i * dim + d]! *= inv;
  }
  return out;
}

function hashVectors(texts: readonly string[]): Float32Array {
  const out = new Float32Array(texts.length * HASH_DIM);
  texts.forEach((t, i) => out.set(hashEmbed(t), i * HASH_DIM));
  return out;
}

const ADD_THREADS = 2;

async function measure(dataset: string, data: Float32Array, queries: Float32Array, dim: number, depths: number[], rounds: number): Promise<IndexDatasetResult> {
  const n = data.length / dim;
  const q = queries.length / dim;
  log(`index ${dataset}: exact ground truth for ${q} queries over ${n} vectors`);
  const exact = exactSearch(data, queries, dim, 10, MetricKind.Cos, 0) as unknown as { get(i: number): { keys: BigUint64Array } };
  const truth = Array.from({ length: q }, (_, i) => exact.get(i).keys);

  const opts = (expansion_search: number) => ({
    dimensions: dim,
    metric: MetricKind.Cos,
    quantization: ScalarKind.F16,
    connectivity: 16,
    expansion_add: 128,
    expansion_search,
    multi: false,
  });
  global.gc?.();
  const rssBefore = rssOf(process.pid);
  const build = new Index(opts(depths[0]!));
  const keys = BigUint64Array.from({ length: n }, (_, i) => BigInt(i));
  log(`index ${dataset}: adding ${n} vectors (${ADD_THREADS} threads)`);
  const t0 = process.hrtime.bigint();
  const chunk = 10_000;
  for (let i = 0; i < n; i += chunk) {
    // slice, not subarray: the binding may read a view's whole underlying buffer.
    build.add(keys.slice(i, Math.min(n, i + chunk)), data.slice(i * dim, Math.min(n, i + chunk) * dim), ADD_THREADS);
    if (n > chunk) log(`index ${dataset}: added ${Math.min(n, i + chunk)}/${n}`);
  }
  const addS = Number(process.hrtime.bigint() - t0) / 1e9;
  const rssAfter = rssOf(process.pid);
  const dir = await mkdtemp(join(tmpdir(), 'cg-bench-index-'));
  const file = join(dir, 'index.usearch');
  build.save(file);
  const fileBytes = (await stat(file)).size;

  const results: IndexDepthResult[] = [];
  try {
    for (const depth of depths) {
      const index = new Index(opts(depth));
      index.view(file);
      const approx: BigUint64Array[] = [];
      const qpsRuns: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const start = process.hrtime.bigint();
        for (let i = 0; i < q; i++) {
          const m = index.search(queries.slice(i * dim, (i + 1) * dim), 10, 1) as unknown as { keys: BigUint64Array };
          if (round === 0) approx.push(m.keys);
        }
        qpsRuns.push(q / (Number(process.hrtime.bigint() - start) / 1e9));
      }
      const r = { expansion_search: depth, recall_at_10: round4(overlapRecall(approx, truth, 10)), qps: repeated(qpsRuns.map((x) => Math.round(x))) };
      results.push(r);
      log(`index ${dataset}: ef ${depth} recall@10 ${r.recall_at_10} ${r.qps.median} q/s`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return {
    dataset,
    vectors: n,
    dim,
    queries: q,
    add_per_s: Math.round(n / addS),
    add_threads: ADD_THREADS,
    rss_bytes_per_vector: rssBefore !== null && rssAfter !== null ? Math.round((rssAfter - rssBefore) / n) : null,
    file_bytes_per_vector: Math.round(fileBytes / n),
    raw_f32_bytes_per_vector: dim * 4,
    depths: results,
  };
}

export async function runIndex(opts: { size: number; queries: number; seed: number; depths: number[]; rounds: number; datasets: string[] }): Promise<IndexDatasetResult[]> {
  const out: IndexDatasetResult[] = [];
  if (opts.datasets.includes('e1-hash')) {
    const corpus = makeCorpus(opts.size, opts.seed);
    const data = hashVectors(corpus.map((m) => `${m.topic}\n${m.content}`));
    const queries = hashVectors(makeQueries(opts.queries, opts.seed));
    out.push(await measure('e1-hash (model-free E1 of the corpus)', data, queries, HASH_DIM, opts.depths, opts.rounds));
  }
  if (opts.datasets.includes('low-rank')) {
    // One draw so data and queries share the projection; the queries are the last rows.
    const all = lowRank(opts.size + opts.queries, 384, opts.seed);
    const data = all.slice(0, opts.size * 384);
    const queries = all.slice(opts.size * 384);
    out.push(await measure('low-rank-384 (32-d latent + noise)', data, queries, 384, opts.depths, opts.rounds));
  }
  return out;
}
