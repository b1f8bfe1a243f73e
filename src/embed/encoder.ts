import type { EncoderInfo } from './types.js';

/**
 * One space's encoder as the embedding worker runs it. Encoders are plain objects in worker
 * state; only `info` crosses to the main thread.
 */
export interface SpaceEncoder {
  readonly info: EncoderInfo;
  /**
   * One vector per text, in order: L2-normalised of length `info.dim` for a dense space; for a
   * sparse space (`info.dim` 0, E13) a packed variable-length term vector (src/embed/keyword.ts).
   */
  encode(texts: readonly string[], items?: readonly EncodeItem[]): Promise<Float32Array[]> | Float32Array[];
  /** Like encode, each word's own weight multiplied by `weight(word)` (query-side weighting). */
  encodeWeighted?(texts: readonly string[], weight: (word: string) => number): Promise<Float32Array[]>;
  close?(): Promise<void>;
}

/**
 * What a memory is besides its text, for the spaces that encode it (E2–E4: its time and its
 * order in its project). Absent for a query: a query is "now", at no position.
 */
export interface EncodeItem {
  /** Epoch ms of the memory (valid_from, else created_at). */
  at?: number;
  /** 0-based order of the memory among its project's memories. */
  position?: number;
}

/** How a worker builds E1; the same in every worker, so vectors never depend on the thread. */
export type E1Config =
  | { provider: 'model-free' }
  /** The bundled static GloVe model (assets/e1-glove): the default when no model is configured. */
  | { provider: 'glove-static'; modelDir: string }
  | { provider: 'onnx'; modelDir: string; maxLength?: number; modelId?: string }
  /**
   * E1 known only by its info (read from the model's config.json): the main thread builds the
   * encoders with it to learn every space's dim and model id without loading a model; such an
   * E1 cannot encode.
   */
  | { provider: 'described'; info: EncoderInfo };

/**
 * What encoder factories may read. Plain data: it travels with every task to the embedding
 * workers, so every thread builds the same encoders.
 */
export interface EncoderConfig {
  e1: E1Config;
}

/**
 * Encoders are rebuilt when this changes. The E1 model id is left out: the pool learns it from
 * the first worker and adds it to the config, and that is the same model either way.
 */
export function encoderConfigKey(config: EncoderConfig): string {
  const { e1 } = config;
  if (e1.provider === 'onnx') return `onnx\u0000${e1.modelDir}\u0000${e1.maxLength ?? ''}`;
  if (e1.provider === 'described') return `described\u0000${e1.info.modelId}`;
  return e1.provider === 'glove-static' ? `glove\u0000${e1.modelDir}` : 'model-free';
}

/** Scales in place to unit length; a zero vector stays zero rather than turning into NaNs. */
export function l2normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  if (sum > 0) {
    const inv = 1 / Math.sqrt(sum);
    for (let i = 0; i < v.length; i++) v[i] = v[i]! * inv;
  }
  return v;
}
