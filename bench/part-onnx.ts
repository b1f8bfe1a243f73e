/**
 * Part `onnx`: the write path with the generated BERT-shaped ONNX test model
 * (test/fixtures/tiny-model.ts) against raw onnxruntime on the same model in the same run.
 *  - raw: one InferenceSession (1 intra-op thread, as each pool worker uses), texts tokenized
 *    beforehand and run in length-sorted batches of 32: session.run time only, and with
 *    tokenization included;
 *  - pipeline embed: the app's embedding pool (Piscina, cores − 1 workers) on the same texts, E1 only;
 *  - ingest: bulk load (batched logged inserts + embed jobs, both spaces) and live `store` latency.
 * Ratios: pipeline / raw. The test model is tiny (a gather and a 32×32 matmul), so the fixed
 * per-text costs dominate; a real model spends far more time in session.run.
 */
import { join } from 'node:path';
import ort from 'onnxruntime-node';
import { createEmbedder } from '../src/embed/pool.js';
import { BertTokenizer } from '../src/embed/onnx.js';
import { createLogger } from '../src/log.js';
import { tempDir } from '../test/helpers/cli.js';
import { makeTinyModel } from '../test/fixtures/tiny-model.js';
import { openBenchApp } from './app.js';
import { makeCorpus } from './corpus.js';
import { log } from './env.js';
import { bulkLoad, storeLoop } from './load.js';
import { ratio, repeated, repeatedLatency, type Repeated, type RepeatedLatency } from './stats.js';

export interface OnnxResult {
  model: string;
  texts: number;
  pool_threads: number;
  raw_ort_run_only_per_s: Repeated;
  raw_ort_with_tokenizer_per_s: Repeated;
  pipeline_embed_e1_per_s: Repeated;
  bulk_ingest_per_s: number;
  bulk_ingest_path: string;
  store: { latency: RepeatedLatency; live_per_s: number; at_size: number };
  ratios: { pipeline_embed_over_raw: number | null; bulk_ingest_over_raw: number | null; pipeline_embed_over_raw_with_tokenizer: number | null };
}

export async function runOnnx(opts: { texts: number; storeSamples: number; rounds: number; seed: number }): Promise<OnnxResult> {
  const dir = await tempDir('cg-bench-onnx-');
  try {
    const modelDir = join(dir.path, 'tiny-model');
    await makeTinyModel(modelDir);
    const corpus = makeCorpus(opts.texts + opts.rounds * opts.storeSamples, opts.seed + 7);
    const texts = corpus.slice(0, opts.texts).map((m) => `${m.topic}\n${m.content}`);

    // Raw onnxruntime.
    const tokenizer = await BertTokenizer.load(modelDir);
    const session = await ort.InferenceSession.create(join(modelDir, 'model.onnx'), {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
      logSeverityLevel: 3,
    });
    const runBatches = async (rows: number[][]) => {
      const order = rows.map((_, i) => i).sort((a, b) => rows[a]!.length - rows[b]!.length);
      for (let s = 0; s < order.length; s += 32) {
        const tb = tokenizer.pad(order.slice(s, s + 32).map((i) => rows[i]!));
        const dims = [tb.batch, tb.seq];
        const feeds: Record<string, InstanceType<typeof ort.Tensor>> = {};
        const data: Record<string, BigInt64Array> = { input_ids: tb.inputIds, attention_mask: tb.attentionMask, token_type_ids: tb.tokenTypeIds };
        for (const name of session.inputNames) feeds[name] = new ort.Tensor('int64', data[name]!, dims);
        await session.run(feeds);
      }
    };
    const pre = texts.map((t) => tokenizer.ids(t));
    await runBatches(pre.slice(0, 64)); // warm-up
    const rawRun: number[] = [];
    const rawTok: number[] = [];
    for (let r = 0; r < opts.rounds; r++) {
      let t0 = process.hrtime.bigint();
      await runBatches(pre);
      rawRun.push(texts.length / (Number(process.hrtime.bigint() - t0) / 1e9));
      t0 = process.hrtime.bigint();
      await runBatches(texts.map((t) => tokenizer.ids(t)));
      rawTok.push(texts.length / (Number(process.hrtime.bigint() - t0) / 1e9));
    }
    await session.release();
    log(`onnx: raw ort ${Math.round(rawRun[0]!)} texts/s (run only), ${Math.round(rawTok[0]!)} with tokenizer`);

    // The app's embedding pool.
    const embedder = await createEmbedder({ modelDir, logger: createLogger('warn') });
    const threads = embedder.health().threads;
    const pipe: number[] = [];
    try {
      await embedder.embed(texts.slice(0, 64), ['E1']);
      for (let r = 0; r < opts.rounds; r++) {
        const t0 = process.hrtime.bigint();
        await embedder.embed(texts, ['E1']);
        pipe.push(texts.length / (Number(process.hrtime.bigint() - t0) / 1e9));
      }
    } finally {
      await embedder.close();
    }
    log(`onnx: pipeline embed ${Math.round(pipe[0]!)} texts/s`);

    // Full ingest with the model.
    const app = await openBenchApp(join(dir.path, 'data'), modelDir);
    try {
      const loaded = await bulkLoad(app, corpus.slice(0, opts.texts));
      log(`onnx: bulk ingest ${loaded.per_s} memories/s`);
      let cursor = opts.texts;
      let liveS = 0;
      const samples: number[][] = [];
      for (let r = 0; r < opts.rounds; r++) {
        const s: number[] = [];
        liveS += (await storeLoop(app, corpus.slice(cursor, cursor + opts.storeSamples), { samples: s })).seconds;
        cursor += opts.storeSamples;
        samples.push(s);
      }
      const rawMedian = repeated(rawRun).median;
      const pipeMedian = repeated(pipe).median;
      return {
        model: 'generated tiny BERT-shaped ONNX model (test/fixtures/tiny-model.ts, 32-d)',
        texts: texts.length,
        pool_threads: threads,
        raw_ort_run_only_per_s: repeated(rawRun.map(Math.round)),
        raw_ort_with_tokenizer_per_s: repeated(rawTok.map(Math.round)),
        pipeline_embed_e1_per_s: repeated(pipe.map(Math.round)),
        bulk_ingest_per_s: loaded.per_s,
        bulk_ingest_path: loaded.path,
        store: { latency: repeatedLatency(samples), live_per_s: Math.round(((opts.rounds * opts.storeSamples) / liveS) * 10) / 10, at_size: opts.texts },
        ratios: {
          pipeline_embed_over_raw: ratio(pipeMedian, rawMedian),
          bulk_ingest_over_raw: ratio(loaded.per_s, rawMedian),
          pipeline_embed_over_raw_with_tokenizer: ratio(pipeMedian, repeated(rawTok).median),
        },
      };
    } finally {
      await app.close();
    }
  } finally {
    await dir.remove();
  }
}
