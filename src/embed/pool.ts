import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { Piscina } from 'piscina';
import type { Logger } from '../log.js';
import { workerFile } from '../paths.js';
import type { BatchOutput } from '../utl/fingerprint-batch.js';
import type { ConeFitOutput } from '../utl/poincare.js';
import type { Embedder } from './embedder.js';
import { bundledE1ModelDir, hasBundledE1Model } from './bundled.js';
import type { E1Config, EncodeItem, EncoderConfig } from './encoder.js';
import { checkEncoder } from './spaces/define.js';
import { BACKGROUND_LANE, TaskLanes } from './task-lanes.js';
import { implementedSpaces, spaceById } from './spaces/registry.js';
import type { EncoderInfo, SpaceId } from './types.js';

export type { E1Config, EncoderConfig } from './encoder.js';

/** Every task carries the config, so any worker (including a respawned one) builds the same encoders. */
export type EmbedWorkerTask =
  { op: 'info'; config: EncoderConfig } | { op: 'embed'; config: EncoderConfig; texts: string[]; spaces: SpaceId[]; wordWeights?: Record<string, number>; items?: EncodeItem[] };

/** `info` answers EncoderInfo[]; `embed` one vector list per requested space. */
export type EmbedWorkerResult = EncoderInfo[] | Partial<Record<SpaceId, Float32Array[]>>;

export interface CreateEmbedderOptions {
  /** Folder with model.onnx + tokenizer.json; unset means the bundled static GloVe E1 (model-free without it). */
  modelDir?: string | undefined;
  /** Worker threads; default: all cores but one, at least one. */
  threads?: number;
  logger: Logger;
  /** Token limit of the ONNX encoder, [CLS] and [SEP] included (default 256). */
  maxLength?: number;
}

export interface EmbedderHealth {
  e1Provider: EncoderInfo['provider'];
  modelDir: string | null;
  threads: number;
  encoders: EncoderInfo[];
}

export interface PoolEmbedder extends Embedder {
  health(): EmbedderHealth;
}

// Texts per worker task: enough to amortise the ~50 µs round trip, small enough to spread a
// backlog batch over all threads.
const MAX_TEXTS_PER_TASK = 64;

/**
 * Starts the embedding worker pool. With a configured ONNX model, one worker builds the encoders
 * before this resolves: that learns dim and model id without loading the model into the main
 * thread (an ONNX model can be hundreds of MB), makes a bad CONTEXT_GRAPH_MODEL_DIR fail at
 * start-up rather than at the first write, and lets every other worker reuse the model id
 * instead of hashing the model file again. The bundled GloVe model and the model-free E1 are
 * described from their metadata instead (`describeEncoders`), so no worker and no native
 * runtime is loaded until the first embedding (issue 15: an idle server stays small).
 * `encoders()` answers from that cached list either way.
 */
export async function createEmbedder(opts: CreateEmbedderOptions): Promise<PoolEmbedder> {
  const threads = Math.max(1, Math.floor(opts.threads ?? availableParallelism() - 1));
  const modelDir = opts.modelDir ? resolve(opts.modelDir) : null;
  let e1: E1Config = modelDir
    ? { provider: 'onnx', modelDir, ...(opts.maxLength !== undefined ? { maxLength: opts.maxLength } : {}) }
    : hasBundledE1Model()
      ? { provider: 'glove-static', modelDir: bundledE1ModelDir() }
      : { provider: 'model-free' };

  // Built on first use: with the bundled GloVe or the model-free E1 no thread and no model exist
  // until the first embedding (issue 15: an idle server stays small). From then on it is the pool
  // it always was, one thread kept for the life of the process (a respawned worker reloads the
  // model: keep idle extra ones around for a while). Its queue puts the embeddings a call waits
  // for before a job's (task-lanes.ts), and keeps that order when a dispatch is refused.
  let pool: Piscina<EmbedWorkerTask, EmbedWorkerResult> | undefined;
  const started = (): Piscina<EmbedWorkerTask, EmbedWorkerResult> =>
    (pool ??= new Piscina<EmbedWorkerTask, EmbedWorkerResult>({
      filename: workerFile('embed'),
      minThreads: 1,
      maxThreads: threads,
      idleTimeout: 60_000,
      taskQueue: new TaskLanes(),
      stricterFIFO: true,
    }));

  // Background arithmetic (the fingerprint job's and the hierarchy fit's: workers/math.ts) gets a
  // thread of its own: in the embedding pool's FIFO it would make the embed task of a write that
  // waits for its vectors queue behind a batch of fingerprints or a fit. The thread exits when idle, so an idle server does not keep it.
  let math: Piscina | undefined;
  const mathPool = (): Piscina => (math ??= new Piscina({ filename: workerFile('math'), minThreads: 0, maxThreads: 1, idleTimeout: 10_000 }));

  let encoders: EncoderInfo[];
  try {
    encoders = e1.provider === 'onnx' ? ((await started().run({ op: 'info', config: { e1 } })) as EncoderInfo[]) : await describeEncoders(e1);
  } catch (err) {
    await pool?.destroy().catch(() => {});
    throw err;
  }
  const e1Info = encoders.find((e) => e.space === 'E1');
  if (e1.provider === 'onnx' && e1Info) e1 = { ...e1, modelId: e1Info.modelId };
  const enabled = new Set(encoders.map((e) => e.space));
  const e1Provider = e1Info?.provider ?? 'model-free';
  opts.logger.info({ threads, e1: e1Info, encoders: encoders.map((e) => `${e.space}:${e.modelId}`) }, 'embedding pool ready');

  let closed = false;
  return {
    encoders: () => encoders.map((e) => ({ ...e })),

    async embed(texts, spaces, opts = {}) {
      if (closed) throw new Error('embedder is closed');
      const wanted = spaces ? [...new Set(spaces)] : encoders.map((e) => e.space);
      for (const space of wanted) {
        if (!enabled.has(space)) {
          const info = spaceById(space);
          throw new Error(`space ${space} (${info.name}) has no enabled encoder (status: ${info.status}); enabled: ${[...enabled].join(', ')}`);
        }
      }
      const out = new Map<SpaceId, Float32Array[]>(wanted.map((s) => [s, []]));
      if (texts.length === 0 || wanted.length === 0) return out;

      const perTask = Math.min(MAX_TEXTS_PER_TASK, Math.ceil(texts.length / threads));
      const tasks: Array<Promise<EmbedWorkerResult>> = [];
      for (let i = 0; i < texts.length; i += perTask) {
        const task: EmbedWorkerTask = { op: 'embed', config: { e1 }, texts: texts.slice(i, i + perTask), spaces: wanted };
        if (opts.wordWeights) task.wordWeights = { ...opts.wordWeights };
        if (opts.items) task.items = opts.items.slice(i, i + perTask);
        tasks.push(started().run(opts.background ? Object.assign(task, BACKGROUND_LANE) : task));
      }
      for (const result of await Promise.all(tasks)) {
        const bySpace = result as Partial<Record<SpaceId, Float32Array[]>>;
        for (const space of wanted) out.get(space)!.push(...bySpace[space]!);
      }
      return out;
    },

    async fingerprintMath(input) {
      if (closed) throw new Error('embedder is closed');
      return (await mathPool().run(input)) as BatchOutput;
    },

    async fitCones(input) {
      if (closed) throw new Error('embedder is closed');
      return (await mathPool().run(input, { name: 'fitCones' })) as ConeFitOutput;
    },

    health: () => ({ e1Provider, modelDir, threads, encoders: encoders.map((e) => ({ ...e })) }),

    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([pool?.destroy(), math?.destroy()]);
    },
  };
}

/**
 * What the workers' `info` task would answer, built in this thread without loading a model: the
 * bundled static E1 is described by its config.json (model_id, dim; the worker checks the
 * files' hashes when it loads them), and every other encoder is model-free and cheap to build.
 * test/unit/embed-describe.test.ts pins it to what a worker answers.
 */
export async function describeEncoders(e1: Exclude<E1Config, { provider: 'onnx' }>): Promise<EncoderInfo[]> {
  let config: EncoderConfig = { e1 };
  if (e1.provider === 'glove-static') {
    // The file name is static-onnx.ts's STATIC_CONFIG_FILE, not imported: that module loads onnxruntime.
    const path = join(e1.modelDir, 'config.json');
    const meta = JSON.parse(await readFile(path, 'utf8')) as { model_id?: unknown; dim?: unknown };
    if (typeof meta.model_id !== 'string' || !Number.isInteger(meta.dim)) throw new Error(`${path} lacks model_id or dim`);
    config = { e1: { provider: 'described', info: { space: 'E1', modelId: meta.model_id, dim: meta.dim as number, provider: 'glove-static' } } };
  }
  const infos: EncoderInfo[] = [];
  for (const space of implementedSpaces()) {
    const encoder = await space.encoder!(config);
    checkEncoder(space, encoder);
    infos.push({ ...encoder.info });
    await encoder.close?.();
  }
  return infos;
}
