import type { EncoderConfig, SpaceEncoder } from '../encoder.js';
import type { IndexKind, SpaceId, SpaceInfo } from '../types.js';

/** Builds a space's encoder inside an embedding worker (once per thread, then reused). */
export type EncoderFactory = (config: EncoderConfig) => SpaceEncoder | Promise<SpaceEncoder>;

interface Common {
  id: SpaceId;
  /** Short, lower-case, stable: it shows in health output and the docs. */
  name: string;
  purpose: string;
  index: IndexKind;
  /** Name of the space's ranked list in search hits' `signals`; default: the id. */
  signal?: string;
  /**
   * Dense spaces: candidates HNSW weighs per insert (default 128, the stack check's setting for
   * low-rank text embeddings). A wide space of near-orthogonal vectors keeps its recall with
   * fewer at a fraction of the cost; say where that was measured.
   */
  hnswExpansionAdd?: number;
}

export const DEFAULT_HNSW_EXPANSION_ADD = 128;

/** What a space file passes to `defineSpace`. */
export type SpaceDeclaration =
  | (Common & {
      status: 'implemented';
      /** Weight of the space's ranked list in hybrid-search fusion (weighted RRF); say where it was measured. */
      weight: number;
      encoder: EncoderFactory;
    })
  | (Common & {
      status: 'planned';
      /** Unmeasured until the encoder exists; a planned space is never searched. */
      weight?: number;
      encoder?: undefined;
    });

/** One embedding space as every part of the server sees it (src/embed/spaces/registry.ts lists them). */
export interface SpaceDefinition extends SpaceInfo {
  readonly index: IndexKind;
  readonly weight: number;
  readonly signal: string;
  readonly hnswExpansionAdd: number;
  /** Present exactly when status is `implemented`. */
  readonly encoder: EncoderFactory | undefined;
}

export function defineSpace(decl: SpaceDeclaration): SpaceDefinition {
  const where = `space ${decl.id}`;
  if (!/^E([1-9]|1[0-3])$/.test(decl.id)) throw new Error(`${where}: ids are E1 … E13 (seed 001)`);
  if (!/^[a-z][a-z0-9-]*$/.test(decl.name)) throw new Error(`${where}: name ${JSON.stringify(decl.name)} must be lower-case words joined by '-'`);
  if (!decl.purpose.trim()) throw new Error(`${where}: purpose is required`);
  const weight = decl.weight ?? 0;
  if (!Number.isFinite(weight) || weight < 0) throw new Error(`${where}: weight must be a finite number ≥ 0, got ${decl.weight}`);
  const expansionAdd = decl.hnswExpansionAdd ?? DEFAULT_HNSW_EXPANSION_ADD;
  if (!Number.isInteger(expansionAdd) || expansionAdd < 1) throw new Error(`${where}: hnswExpansionAdd must be a positive integer, got ${decl.hnswExpansionAdd}`);
  // The types already say this; the checks keep a hand-edited space file from lying at run time.
  if (decl.status === 'implemented' && typeof decl.encoder !== 'function') throw new Error(`${where}: an implemented space needs an encoder`);
  if (decl.status === 'planned' && decl.encoder !== undefined) throw new Error(`${where}: a planned space has no encoder; mark it implemented`);
  return Object.freeze({
    id: decl.id,
    name: decl.name,
    purpose: decl.purpose,
    status: decl.status,
    index: decl.index,
    weight,
    signal: decl.signal ?? decl.id,
    hnswExpansionAdd: expansionAdd,
    encoder: decl.encoder,
  });
}

/**
 * An encoder must match the space that built it: same id, and the vector shape its index kind
 * reads (dense: a fixed dim > 0; sparse and multi: dim 0, variable-length packed terms or token rows).
 */
export function checkEncoder(space: SpaceDefinition, encoder: SpaceEncoder): void {
  const { info } = encoder;
  if (info.space !== space.id) throw new Error(`the encoder of space ${space.id} reports space ${info.space}`);
  const packed = space.index !== 'dense';
  if (packed !== (info.dim === 0)) {
    throw new Error(`space ${space.id} is indexed as ${space.index} but its encoder reports dim ${info.dim} (sparse and multi spaces report 0, dense ones their vector length)`);
  }
}
