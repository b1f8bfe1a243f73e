import type { BatchInput, BatchOutput } from '../utl/fingerprint-batch.js';
import type { ConeFitInput, ConeFitOutput } from '../utl/poincare.js';
import type { EncodeItem } from './encoder.js';
import type { EncoderInfo, SpaceId } from './types.js';

export interface EmbedOptions {
  /**
   * Per-word multipliers (lowercase words as the static E1 tokenizer yields them; a word not
   * listed keeps 1) for encoders that weigh words: the static E1 takes them on the query side
   * (SIF × IDF, src/services/query-weights.ts). Other encoders ignore them.
   */
  wordWeights?: Readonly<Record<string, number>>;
  /** One per text (optional): what E2–E4 encode besides the text (time, position). */
  items?: readonly EncodeItem[];
  /**
   * Work no call is waiting on (a job's vectors): queued behind every embedding a call waits for
   * (a query, a duplicate check), so those never wait for a backlog, only for the task running.
   */
  background?: boolean;
}

/**
 * Turns texts into vectors for every enabled space. The implementation runs the encoders on a
 * Piscina pool (workers/embed.ts) so the event loop never does the CPU work.
 */
export interface Embedder {
  /** The active encoder of each enabled space (E1 and one model-free space to start). */
  encoders(): EncoderInfo[];
  /** One L2-normalised vector per text per requested space (default: all enabled spaces). */
  embed(texts: readonly string[], spaces?: readonly SpaceId[], opts?: EmbedOptions): Promise<Map<SpaceId, Float32Array[]>>;
  /** The fingerprint job's vector arithmetic (src/utl/fingerprint-batch.ts), on a low-priority thread of its own, off the event loop. */
  fingerprintMath(input: BatchInput): Promise<BatchOutput>;
  /** The hierarchy fit of the `hyperbolic-fit` job (src/utl/poincare.ts), on the same thread. */
  fitCones(input: ConeFitInput): Promise<ConeFitOutput>;
  close(): Promise<void>;
}
