import { readFile, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import ort from 'onnxruntime-node';
import type { InferenceSession } from 'onnxruntime-node';
import { MODEL_FILE, sha256File, TOKENIZER_CONFIG_FILE, TOKENIZER_FILE } from './models.js';
import { l2normalize, type SpaceEncoder } from './encoder.js';
import type { EncoderInfo } from './types.js';

/**
 * The ONNX E1 encoder: a BERT-style sentence-embedding model (model.onnx + tokenizer.json) run
 * with onnxruntime-node. @huggingface/tokenizers has no batching, padding or truncation, so this
 * file does them the way Python's tokenizers does (truncation keeps the trailing [SEP]).
 */
export const DEFAULT_MAX_LENGTH = 256;
const DEFAULT_BATCH_SIZE = 32;
const MODEL_DIR_ENV = 'CONTEXT_GRAPH_MODEL_DIR';

/** One onnxruntime session as every E1 encoder opens it: single-threaded ops, quiet, optimised. */
export async function openSession(modelPath: string, threads: number, label: string): Promise<InferenceSession> {
  try {
    return await ort.InferenceSession.create(modelPath, {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
      // Warnings would go to the process's stdout/stderr, and stdout is the MCP channel in stdio mode.
      logSeverityLevel: 3,
    });
  } catch (err) {
    throw new ModelFilesError(`cannot load ${label} with onnxruntime: ${(err as Error).message}`);
  }
}

export class ModelFilesError extends Error {
  override name = 'ModelFilesError';
}

export interface TokenBatch {
  batch: number;
  /** Padded length: the longest row of this batch. */
  seq: number;
  inputIds: BigInt64Array;
  attentionMask: BigInt64Array;
  tokenTypeIds: BigInt64Array;
  /** Unpadded token count of each row, [CLS] and [SEP] included. */
  lengths: number[];
}

async function requireFile(modelDir: string, file: string): Promise<string> {
  const path = join(modelDir, file);
  const info = await stat(path).catch(() => null);
  if (!info?.isFile()) {
    throw new ModelFilesError(
      `${file} not found in ${modelDir} (${MODEL_DIR_ENV}). Download a model with ` +
        `\`context-graph models pull all-MiniLM-L6-v2\` and point ${MODEL_DIR_ENV} at its folder, ` +
        `or unset ${MODEL_DIR_ENV} to use the bundled E1 model.`,
    );
  }
  return path;
}

async function readJson(path: string): Promise<Record<string, unknown>> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new ModelFilesError(`${path} (${MODEL_DIR_ENV}) is not valid JSON: ${(err as Error).message}`);
  }
}

/** tokenizer_config.json writes special tokens either as strings or as AddedToken objects. */
function tokenName(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as { content?: unknown }).content === 'string') {
    return (value as { content: string }).content;
  }
  return undefined;
}

export class BertTokenizer {
  readonly clsId: number;
  readonly sepId: number;
  readonly padId: number;

  constructor(
    private readonly tokenizer: Tokenizer,
    config: Record<string, unknown>,
    readonly maxLength: number = DEFAULT_MAX_LENGTH,
  ) {
    if (!Number.isInteger(maxLength) || maxLength < 3) throw new RangeError(`maxLength must be an integer >= 3, got ${maxLength}`);
    const cls = tokenName(config.cls_token) ?? '[CLS]';
    const sep = tokenName(config.sep_token) ?? '[SEP]';
    const pad = tokenName(config.pad_token) ?? '[PAD]';
    const clsId = tokenizer.token_to_id(cls);
    const sepId = tokenizer.token_to_id(sep);
    if (clsId === undefined || sepId === undefined) {
      throw new ModelFilesError(`tokenizer.json has no ${clsId === undefined ? cls : sep} token; only BERT-style [CLS] … [SEP] models are supported`);
    }
    this.clsId = clsId;
    this.sepId = sepId;
    // BERT vocabularies put [PAD] at 0; padding ids are masked out anyway.
    this.padId = tokenizer.token_to_id(pad) ?? 0;
  }

  static async load(modelDir: string, maxLength: number = DEFAULT_MAX_LENGTH): Promise<BertTokenizer> {
    const tokenizerJson = await readJson(await requireFile(modelDir, TOKENIZER_FILE));
    const configPath = join(modelDir, TOKENIZER_CONFIG_FILE);
    const config = (await stat(configPath).catch(() => null))?.isFile() ? await readJson(configPath) : {};
    let tokenizer: Tokenizer;
    try {
      tokenizer = new Tokenizer(tokenizerJson, config);
    } catch (err) {
      throw new ModelFilesError(`cannot load ${join(modelDir, TOKENIZER_FILE)} (${MODEL_DIR_ENV}): ${(err as Error).message}`);
    }
    return new BertTokenizer(tokenizer, config, maxLength);
  }

  /** [CLS] + at most maxLength-2 word pieces + [SEP]. */
  ids(text: string): number[] {
    // Tokenizing costs time in proportion to the input, and all but the first maxLength-2 pieces
    // are dropped anyway. A piece spans at most ~100 characters (longer words become [UNK]), so
    // this cut only changes the result for texts made mostly of whitespace or giant words.
    const limit = this.maxLength * 128;
    const input = text.length > limit ? text.slice(0, limit) : text;
    const pieces = this.tokenizer.encode(input, { add_special_tokens: false }).ids;
    const body = pieces.length > this.maxLength - 2 ? pieces.slice(0, this.maxLength - 2) : pieces;
    return [this.clsId, ...body, this.sepId];
  }

  batch(texts: readonly string[]): TokenBatch {
    return this.pad(texts.map((t) => this.ids(t)));
  }

  /** Right-pads rows to the longest one; the mask is 1 on real tokens only. */
  pad(rows: readonly number[][]): TokenBatch {
    const batch = rows.length;
    const seq = rows.reduce((m, r) => Math.max(m, r.length), 0);
    const inputIds = new BigInt64Array(batch * seq).fill(BigInt(this.padId));
    const attentionMask = new BigInt64Array(batch * seq);
    rows.forEach((row, r) => {
      for (let t = 0; t < row.length; t++) {
        inputIds[r * seq + t] = BigInt(row[t]!);
        attentionMask[r * seq + t] = 1n;
      }
    });
    // Single-sentence input: every token is segment 0.
    return { batch, seq, inputIds, attentionMask, tokenTypeIds: new BigInt64Array(batch * seq), lengths: rows.map((r) => r.length) };
  }
}

/**
 * `onnx:<folder>:<12 hex of sha256(model.onnx)>`: the content hash, not the folder name, is what
 * keeps vectors of two different models from being mixed after a model is replaced in place.
 */
export async function onnxModelId(modelDir: string): Promise<string> {
  const dir = resolve(modelDir);
  const sha = await sha256File(await requireFile(dir, MODEL_FILE));
  return `onnx:${basename(dir)}:${sha.slice(0, 12)}`;
}

export interface OnnxEncoderOptions {
  maxLength?: number;
  /** intraOpNumThreads; 1 in pool workers so N workers do not oversubscribe the cores. */
  threads?: number;
  /** Texts per session.run; longer inputs are split so padding and memory stay bounded. */
  batchSize?: number;
  /** A precomputed onnxModelId(modelDir), so each worker need not hash the model again. */
  modelId?: string;
}

export class OnnxEncoder implements SpaceEncoder {
  private constructor(
    readonly info: EncoderInfo,
    readonly tokenizer: BertTokenizer,
    private readonly session: InferenceSession,
    private readonly batchSize: number,
  ) {}

  static async load(modelDir: string, opts: OnnxEncoderOptions = {}): Promise<OnnxEncoder> {
    const dir = resolve(modelDir);
    const dirInfo = await stat(dir).catch(() => null);
    if (!dirInfo?.isDirectory()) {
      throw new ModelFilesError(`model folder ${dir} (${MODEL_DIR_ENV}) does not exist; unset ${MODEL_DIR_ENV} to use the bundled E1 model`);
    }
    const modelPath = await requireFile(dir, MODEL_FILE);
    const tokenizer = await BertTokenizer.load(dir, opts.maxLength ?? DEFAULT_MAX_LENGTH);
    const modelId = opts.modelId ?? (await onnxModelId(dir));
    const session = await openSession(modelPath, opts.threads ?? 1, `${modelPath} (${MODEL_DIR_ENV})`);
    if (!session.inputNames.includes('input_ids')) {
      await session.release();
      throw new ModelFilesError(`${modelPath} has no input_ids input (inputs: ${session.inputNames.join(', ')}); expected a BERT-style encoder`);
    }
    // The output width is only certain after a run (symbolic dims in the metadata): probe once.
    const probe = new OnnxEncoder({ space: 'E1', modelId, dim: 0, provider: 'onnx' }, tokenizer, session, 1);
    const [vec] = await probe.encode(['dimension probe']);
    const batchSize = opts.batchSize ?? DEFAULT_BATCH_SIZE;
    return new OnnxEncoder({ space: 'E1', modelId, dim: vec!.length, provider: 'onnx' }, tokenizer, session, batchSize);
  }

  async encode(texts: readonly string[]): Promise<Float32Array[]> {
    const rows = texts.map((t) => this.tokenizer.ids(t));
    // Sorting by length before cutting batches keeps padding, and wasted compute, small.
    const order = rows.map((_, i) => i).sort((a, b) => rows[a]!.length - rows[b]!.length);
    const out = new Array<Float32Array>(texts.length);
    for (let start = 0; start < order.length; start += this.batchSize) {
      const idx = order.slice(start, start + this.batchSize);
      const vectors = await this.run(this.tokenizer.pad(idx.map((i) => rows[i]!)));
      idx.forEach((i, k) => (out[i] = vectors[k]!));
    }
    return out;
  }

  /** Runs one padded batch and pools it: masked mean of [batch, seq, dim], or a [batch, dim] output as is. */
  async run(tb: TokenBatch): Promise<Float32Array[]> {
    const dims = [tb.batch, tb.seq];
    const available: Record<string, BigInt64Array> = {
      input_ids: tb.inputIds,
      attention_mask: tb.attentionMask,
      token_type_ids: tb.tokenTypeIds,
    };
    const feeds: Record<string, InstanceType<typeof ort.Tensor>> = {};
    for (const name of this.session.inputNames) {
      const data = available[name];
      // Exports differ (DistilBERT has no token_type_ids); feeding an undeclared input is an error.
      if (!data) throw new ModelFilesError(`model input ${JSON.stringify(name)} is not supported (supported: ${Object.keys(available).join(', ')})`);
      feeds[name] = new ort.Tensor('int64', data, dims);
    }
    const outputName = this.session.outputNames[0]!;
    const result = await this.session.run(feeds);
    const output = result[outputName]!;
    if (output.type !== 'float32') throw new ModelFilesError(`model output ${outputName} is ${output.type}; expected float32`);
    const data = output.data as Float32Array;
    const odims = output.dims;
    const vectors: Float32Array[] = [];
    if (odims.length === 3) {
      const [, seq, dim] = odims as [number, number, number];
      for (let r = 0; r < tb.batch; r++) {
        // Sum instead of mean: dividing by the token count is undone by the normalisation.
        const sum = new Float64Array(dim);
        for (let t = 0; t < seq; t++) {
          if (tb.attentionMask[r * tb.seq + t] === 0n) continue;
          const base = (r * seq + t) * dim;
          for (let k = 0; k < dim; k++) sum[k] = sum[k]! + data[base + k]!;
        }
        vectors.push(l2normalize(Float32Array.from(sum)));
      }
    } else if (odims.length === 2) {
      const dim = odims[1]!;
      for (let r = 0; r < tb.batch; r++) vectors.push(l2normalize(data.slice(r * dim, (r + 1) * dim)));
    } else {
      throw new ModelFilesError(`model output ${outputName} has shape [${odims.join(', ')}]; expected [batch, seq, dim] or [batch, dim]`);
    }
    return vectors;
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}
