/**
 * Embedding spaces follow seed 001: E1 … E13, each with its own encoder and dimension. A vector
 * always records the model that made it (model_id): vectors of two models are never mixed in
 * one index or one comparison.
 */
export type SpaceId = 'E1' | 'E2' | 'E3' | 'E4' | 'E5' | 'E6' | 'E7' | 'E8' | 'E9' | 'E10' | 'E11' | 'E12' | 'E13';

/**
 * How a space's vectors are indexed and searched (src/index/kinds/): dense = fixed-length unit
 * vectors by cosine (USearch HNSW), sparse = packed term vectors ranked by BM25 (inverted
 * index), multi = several vectors per memory (late interaction: E12's word rows, MaxSim).
 */
export type IndexKind = 'dense' | 'sparse' | 'multi';

/** implemented: an encoder exists and is enabled; planned: registered, no encoder yet. */
export type SpaceStatus = 'implemented' | 'planned';

export interface SpaceInfo {
  id: SpaceId;
  name: string;
  /** What the space captures, from seed 001 / contextgraph.md. */
  purpose: string;
  status: SpaceStatus;
}

/** What the active encoder of a space reports (health output, embeddings.model_id). */
export interface EncoderInfo {
  space: SpaceId;
  modelId: string;
  dim: number;
  provider: 'onnx' | 'model-free' | 'glove-static';
}
