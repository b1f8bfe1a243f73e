import { createHashingEncoder } from '../hashing.js';
import type { EncoderInfo } from '../types.js';
import type { SpaceEncoder } from '../encoder.js';
import { defineSpace } from './define.js';

/** An E1 that only reports what it is (see E1Config 'described'); encoding with it is a bug. */
function describedEncoder(info: EncoderInfo): SpaceEncoder {
  return {
    info: { ...info },
    encode() {
      throw new Error(`E1 ${info.modelId} is only described here; encode in an embedding worker`);
    },
  };
}

/**
 * E1: the meaning of the text. With CONTEXT_GRAPH_MODEL_DIR set, a sentence-embedding ONNX model
 * (`context-graph models pull`); without one, model-free feature hashing, so a fresh install
 * can store and search at once.
 */
export const e1Semantic = defineSpace({
  id: 'E1',
  name: 'semantic',
  purpose: 'meaning of the text (dense sentence embedding)',
  index: 'dense',
  status: 'implemented',
  // The reference weight: the other spaces' weights are relative to it.
  weight: 1,
  async encoder({ e1 }) {
    if (e1.provider === 'model-free') return createHashingEncoder();
    if (e1.provider === 'described') return describedEncoder(e1.info);
    if (e1.provider === 'glove-static') {
      const { StaticOnnxEncoder } = await import('../static-onnx.js');
      return StaticOnnxEncoder.load(e1.modelDir, { threads: 1 });
    }
    // Imported lazily: a model-free pool never loads the native runtime.
    const { OnnxEncoder } = await import('../onnx.js');
    return OnnxEncoder.load(e1.modelDir, {
      threads: 1,
      ...(e1.maxLength !== undefined ? { maxLength: e1.maxLength } : {}),
      ...(e1.modelId !== undefined ? { modelId: e1.modelId } : {}),
    });
  },
});
