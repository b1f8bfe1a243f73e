import type { EncoderInfo, SpaceId } from './types.js';

/**
 * Turns texts into vectors for every enabled space. The implementation runs the encoders on a
 * Piscina pool (workers/embed.ts) so the event loop never does the CPU work.
 */
export interface Embedder {
  /** The active encoder of each enabled space (E1 and one model-free space to start). */
  encoders(): EncoderInfo[];
  /** One L2-normalised vector per text per requested space (default: all enabled spaces). */
  embed(texts: readonly string[], spaces?: readonly SpaceId[]): Promise<Map<SpaceId, Float32Array[]>>;
  close(): Promise<void>;
}
