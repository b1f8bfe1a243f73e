import { createHashingEncoder } from '../src/embed/hashing.js';
import { createHdcEncoder } from '../src/embed/hdc.js';
import { createKeywordEncoder } from '../src/embed/keyword.js';
import type { E1Config, EmbedWorkerResult, EmbedWorkerTask } from '../src/embed/pool.js';
import type { SpaceEncoder } from '../src/embed/spaces.js';
import type { SpaceId } from '../src/embed/types.js';

/**
 * Piscina entry for embedding. Encoders live in module state for the life of the thread: the
 * ONNX session is created once per worker, on its first task, and reused by every later one.
 */

interface Loaded {
  key: string;
  encoders: Promise<Map<SpaceId, SpaceEncoder>>;
}

let loaded: Loaded | null = null;

async function build(e1: E1Config): Promise<Map<SpaceId, SpaceEncoder>> {
  let first: SpaceEncoder;
  if (e1.provider === 'onnx') {
    // Imported lazily: a model-free pool never loads the native runtime.
    const { OnnxEncoder } = await import('../src/embed/onnx.js');
    first = await OnnxEncoder.load(e1.modelDir, {
      threads: 1,
      ...(e1.maxLength !== undefined ? { maxLength: e1.maxLength } : {}),
      ...(e1.modelId !== undefined ? { modelId: e1.modelId } : {}),
    });
  } else {
    first = createHashingEncoder();
  }
  const hdc = createHdcEncoder();
  return new Map<SpaceId, SpaceEncoder>([
    ['E1', first],
    ['E9', hdc],
    ['E13', createKeywordEncoder()],
  ]);
}

function encodersFor(e1: E1Config): Promise<Map<SpaceId, SpaceEncoder>> {
  // The model id is learnt by the first task and then added to the config: same model either way.
  const key = e1.provider === 'onnx' ? `onnx\u0000${e1.modelDir}\u0000${e1.maxLength ?? ''}` : 'model-free';
  if (loaded?.key !== key) {
    const previous = loaded;
    const encoders = build(e1);
    loaded = { key, encoders };
    // A failed load must not stick: the next task retries (the model may have been pulled since).
    encoders.catch(() => {
      if (loaded?.encoders === encoders) loaded = null;
    });
    void previous?.encoders.then((m) => Promise.all([...m.values()].map((e) => e.close?.()))).catch(() => {});
  }
  return loaded!.encoders;
}

export default async function embed(task: EmbedWorkerTask): Promise<EmbedWorkerResult> {
  const encoders = await encodersFor(task.e1);
  if (task.op === 'info') return [...encoders.values()].map((e) => ({ ...e.info }));
  const out: Partial<Record<SpaceId, Float32Array[]>> = {};
  for (const space of task.spaces) {
    const encoder = encoders.get(space);
    if (!encoder) throw new Error(`no encoder for space ${space} in the embedding worker`);
    out[space] = await encoder.encode(task.texts);
  }
  return out;
}
