import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import ort from 'onnxruntime-node';
import type { InferenceSession } from 'onnxruntime-node';
import { bundledE1ModelDir } from './bundled.js';
import { sha256File } from './models.js';
import { ModelFilesError, openSession } from './onnx.js';
import type { SpaceEncoder } from './encoder.js';
import type { EncoderInfo } from './types.js';
import { WordVocabulary } from './word-tokenizer.js';

/**
 * The static-word-vector E1 encoder: GloVe 6B 100-d, pruned, int8, SIF-weighted mean with one
 * common component removed (assets/e1-glove, built by scripts/build-glove-model.mjs). The whole
 * sentence computation is inside model.onnx, so it runs on the same onnxruntime-node as a
 * transformer; this file only tokenizes (word level, src/embed/word-tokenizer.ts) and batches.
 * Output vectors are unit length, or all zeros for a text with no known word.
 */
export const STATIC_PROVIDER = 'glove-static';
export const STATIC_MODEL_FILE = 'model.onnx';
export const STATIC_VOCAB_FILE = 'vocab.txt';
export const STATIC_CONFIG_FILE = 'config.json';

const DEFAULT_BATCH_SIZE = 64;
// A mean of word vectors does not need the whole of a long document to find its topic, and the
// [batch, seq, 100] intermediate must stay small.
const DEFAULT_MAX_TOKENS = 2048;
// Padded tokens per session.run: 16k × 100 floats is 6.4 MB per intermediate tensor.
const MAX_BATCH_TOKENS = 16_384;

export { bundledE1ModelDir };

interface StaticModelConfig {
  model_id: string;
  dim: number;
  vocab_size: number;
  files?: Record<string, string>;
}

export interface StaticOnnxEncoderOptions {
  /** intraOpNumThreads; 1 in pool workers so N workers do not oversubscribe the cores. */
  threads?: number;
  /** Texts per session.run. */
  batchSize?: number;
  /** Known words kept per text; the rest of a longer text is ignored. */
  maxTokens?: number;
  /**
   * Check model.onnx and vocab.txt against the sha256 in config.json (default true): the model
   * id names a recipe, so a table rebuilt differently must not pass under the same id.
   */
  verify?: boolean;
}

/** Per-word multiplier of the SIF weight (e.g. query-side IDF); 0 drops the word. */
export type WordWeight = (word: string) => number;

interface Batch {
  rows: number[][];
  weights: number[][] | null;
}

export class StaticOnnxEncoder implements SpaceEncoder {
  private constructor(
    readonly info: EncoderInfo,
    readonly vocabulary: WordVocabulary,
    private readonly session: InferenceSession,
    private readonly batchSize: number,
    private readonly maxTokens: number,
  ) {}

  static async load(modelDir: string = bundledE1ModelDir(), opts: StaticOnnxEncoderOptions = {}): Promise<StaticOnnxEncoder> {
    const dir = resolve(modelDir);
    const file = async (name: string) => {
      const path = join(dir, name);
      if (!(await stat(path).catch(() => null))?.isFile()) {
        throw new ModelFilesError(`${name} not found in ${dir}: the static E1 model is assets/e1-glove (rebuild: scripts/build-glove-model.mjs)`);
      }
      return path;
    };
    const configPath = await file(STATIC_CONFIG_FILE);
    const modelPath = await file(STATIC_MODEL_FILE);
    const vocabPath = await file(STATIC_VOCAB_FILE);
    let config: StaticModelConfig;
    try {
      config = JSON.parse(await readFile(configPath, 'utf8')) as StaticModelConfig;
    } catch (err) {
      throw new ModelFilesError(`${configPath} is not valid JSON: ${(err as Error).message}`);
    }
    if (typeof config.model_id !== 'string' || !Number.isInteger(config.dim)) {
      throw new ModelFilesError(`${configPath} lacks model_id or dim`);
    }
    if (opts.verify ?? true) {
      for (const [name, path] of [
        [STATIC_MODEL_FILE, modelPath],
        [STATIC_VOCAB_FILE, vocabPath],
      ] as const) {
        const expected = config.files?.[name];
        if (expected && (await sha256File(path)) !== expected) {
          throw new ModelFilesError(`${path} does not match the sha256 in ${configPath}: rebuild the folder with scripts/build-glove-model.mjs`);
        }
      }
    }
    const vocabulary = await WordVocabulary.load(vocabPath);
    if (vocabulary.size !== config.vocab_size) {
      throw new ModelFilesError(`${vocabPath} has ${vocabulary.size} words, ${configPath} says ${config.vocab_size}`);
    }
    const session = await openSession(modelPath, opts.threads ?? 1, modelPath);
    const info: EncoderInfo = { space: 'E1', modelId: config.model_id, dim: config.dim, provider: STATIC_PROVIDER };
    return new StaticOnnxEncoder(info, vocabulary, session, opts.batchSize ?? DEFAULT_BATCH_SIZE, opts.maxTokens ?? DEFAULT_MAX_TOKENS);
  }

  /** Document vectors: each known word at its SIF weight. */
  encode(texts: readonly string[]): Promise<Float32Array[]> {
    return this.encodeRows(
      texts.map((t) => this.vocabulary.ids(t, this.maxTokens)),
      null,
    );
  }

  /**
   * Vectors with each word's SIF weight multiplied by `weight(word)`: the research note's best
   * query side is SIF × IDF, with the IDF from the keyword index's live statistics. Documents
   * should use encode(), so stored vectors never depend on the corpus.
   */
  encodeWeighted(texts: readonly string[], weight: WordWeight): Promise<Float32Array[]> {
    const rows = texts.map((t) => this.vocabulary.ids(t, this.maxTokens));
    const weights = rows.map((row) =>
      row.map((id) => {
        const w = weight(this.vocabulary.words[id]!);
        return Number.isFinite(w) && w > 0 ? w : 0;
      }),
    );
    return this.encodeRows(rows, weights);
  }

  private async encodeRows(rows: number[][], weights: number[][] | null): Promise<Float32Array[]> {
    // Sorting by length before cutting batches keeps padding small.
    const order = rows.map((_, i) => i).sort((a, b) => rows[a]!.length - rows[b]!.length);
    const out = new Array<Float32Array>(rows.length);
    for (let start = 0; start < order.length;) {
      // Rows ascend in length, so the last row taken sets the padded width: stop before the
      // [batch, seq, 100] float intermediate passes MAX_BATCH_TOKENS (long documents).
      let end = start + 1;
      while (end < order.length && end - start < this.batchSize && (end - start + 1) * rows[order[end]!]!.length <= MAX_BATCH_TOKENS) end++;
      const idx = order.slice(start, end);
      start = end;
      const batch: Batch = { rows: idx.map((i) => rows[i]!), weights: weights ? idx.map((i) => weights[i]!) : null };
      const vectors = await this.run(batch);
      idx.forEach((i, k) => (out[i] = vectors[k]!));
    }
    return out;
  }

  private async run({ rows, weights }: Batch): Promise<Float32Array[]> {
    const batch = rows.length;
    // At least one column: a batch of texts with no known word still runs (all-zero mask → zero vectors).
    const seq = Math.max(1, ...rows.map((r) => r.length));
    const ids = new BigInt64Array(batch * seq);
    const mask = new Float32Array(batch * seq);
    rows.forEach((row, r) => {
      row.forEach((id, t) => {
        ids[r * seq + t] = BigInt(id);
        mask[r * seq + t] = weights ? weights[r]![t]! : 1;
      });
    });
    const result = await this.session.run({
      input_ids: new ort.Tensor('int64', ids, [batch, seq]),
      attention_mask: new ort.Tensor('float32', mask, [batch, seq]),
    });
    const output = result[this.session.outputNames[0]!]!;
    const data = output.data as Float32Array;
    const dim = this.info.dim;
    if (output.type !== 'float32' || data.length !== batch * dim) {
      throw new ModelFilesError(`static model output is ${output.type} [${output.dims.join(', ')}]; expected float32 [${batch}, ${dim}]`);
    }
    return Array.from({ length: batch }, (_, r) => data.slice(r * dim, (r + 1) * dim));
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}
