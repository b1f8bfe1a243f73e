import { encoderConfigKey, type EncoderConfig, type SpaceEncoder } from '../src/embed/encoder.js';
import type { EmbedWorkerResult, EmbedWorkerTask } from '../src/embed/pool.js';
import { checkEncoder } from '../src/embed/spaces/define.js';
import { implementedSpaces } from '../src/embed/spaces/registry.js';
import type { SpaceId } from '../src/embed/types.js';

/**
 * Piscina entry for embedding: one encoder per implemented space of the registry. Encoders
 * live in module state for the life of the thread: an ONNX session is created once per
 * worker, on its first task, and reused by every later one.
 */

interface Loaded {
  key: string;
  encoders: Promise<Map<SpaceId, SpaceEncoder>>;
}

let loaded: Loaded | null = null;

async function build(config: EncoderConfig): Promise<Map<SpaceId, SpaceEncoder>> {
  const spaces = implementedSpaces();
  const settled = await Promise.allSettled(spaces.map(async (space) => space.encoder!(config)));
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    // Close what did load: a half-built set must not leak an ONNX session.
    await Promise.all(settled.map((r) => Promise.resolve(r.status === 'fulfilled' ? r.value.close?.() : undefined))).catch(() => {});
    throw failed.reason;
  }
  const encoders = new Map<SpaceId, SpaceEncoder>();
  spaces.forEach((space, i) => {
    const encoder = (settled[i] as PromiseFulfilledResult<SpaceEncoder>).value;
    checkEncoder(space, encoder);
    encoders.set(space.id, encoder);
  });
  return encoders;
}

function encodersFor(config: EncoderConfig): Promise<Map<SpaceId, SpaceEncoder>> {
  const key = encoderConfigKey(config);
  if (loaded?.key !== key) {
    const previous = loaded;
    const encoders = build(config);
    loaded = { key, encoders };
    // A failed load must not stick: the next task retries (the model may have been pulled since).
    encoders.catch(() => {
      if (loaded?.encoders === encoders) loaded = null;
    });
    void previous?.encoders.then((m) => Promise.all([...m.values()].map((e) => Promise.resolve(e.close?.())))).catch(() => {});
  }
  return loaded!.encoders;
}

export default async function embed(task: EmbedWorkerTask): Promise<EmbedWorkerResult> {
  const encoders = await encodersFor(task.config);
  if (task.op === 'info') return [...encoders.values()].map((e) => ({ ...e.info }));
  const out: Partial<Record<SpaceId, Float32Array[]>> = {};
  for (const space of task.spaces) {
    const encoder = encoders.get(space);
    if (!encoder) throw new Error(`no encoder for space ${space} in the embedding worker`);
    const weights = task.wordWeights;
    out[space] =
      weights && encoder.encodeWeighted
        ? await encoder.encodeWeighted(task.texts, (w) => (Object.hasOwn(weights, w) ? weights[w]! : 1))
        : await encoder.encode(task.texts, task.items);
  }
  return out;
}
