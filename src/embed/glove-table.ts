import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundledE1ModelDir } from './bundled.js';
import { WordVocabulary } from './word-tokenizer.js';

/**
 * The word vectors of the bundled E1 model (assets/e1-glove), read straight out of model.onnx's
 * initializers: the int8 table `word_table_int8` [V, D] and its per-row scales. E6 (neighbour
 * expansion) and E12 (per-token MaxSim) need single words' vectors, which the ONNX graph only
 * ever returns averaged; reading the same bytes keeps them tied to E1's recipe and its sha256
 * (config.json), with no second copy of the table in the repository.
 *
 * A cosine between two words ignores the per-row scale (it cancels in the normalisation), so
 * only the int8 rows and their norms are kept: 10 MB per process that loads it.
 */
export interface GloveTable {
  readonly vocabulary: WordVocabulary;
  readonly dim: number;
  /** Row-major int8 [V, dim]. */
  readonly rows: Int8Array;
  /** 1 / ‖row‖ of each int8 row (0 for an all-zero row). */
  readonly invNorm: Float32Array;
  /** The model id of the E1 recipe the rows come from. */
  readonly modelId: string;
}

/** Minimal protobuf walk: yields (field number, wire type, value or bytes) of one message. */
function* fields(buf: Uint8Array, start = 0, end = buf.length): Generator<{ field: number; wire: number; value: number; from: number; to: number }> {
  let p = start;
  const varint = (): number => {
    let result = 0;
    let mul = 1;
    for (;;) {
      const b = buf[p++]!;
      result += (b & 0x7f) * mul;
      if (b < 0x80) return result;
      mul *= 128;
    }
  };
  while (p < end) {
    const key = varint();
    const field = Math.floor(key / 8);
    const wire = key & 7;
    if (wire === 0) yield { field, wire, value: varint(), from: p, to: p };
    else if (wire === 2) {
      const len = varint();
      yield { field, wire, value: len, from: p, to: p + len };
      p += len;
    } else if (wire === 5) p += 4;
    else if (wire === 1) p += 8;
    else throw new Error(`model.onnx: unsupported protobuf wire type ${wire}`);
  }
}

/** The initializers' raw bytes by name (ModelProto.graph = 7, GraphProto.initializer = 5, TensorProto name = 8, raw_data = 9). */
export function onnxInitializers(buf: Uint8Array, names: readonly string[]): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const g of fields(buf)) {
    if (g.field !== 7 || g.wire !== 2) continue;
    for (const init of fields(buf, g.from, g.to)) {
      if (init.field !== 5 || init.wire !== 2) continue;
      let name = '';
      let raw: Uint8Array | null = null;
      for (const f of fields(buf, init.from, init.to)) {
        if (f.field === 8 && f.wire === 2) name = Buffer.from(buf.subarray(f.from, f.to)).toString('utf8');
        if (f.field === 9 && f.wire === 2) raw = buf.subarray(f.from, f.to);
      }
      if (raw && names.includes(name)) out.set(name, raw);
    }
  }
  return out;
}

const cache = new Map<string, GloveTable>();

/** Loads (once per process and folder) the word table of a static GloVe model folder. */
export function loadGloveTable(modelDir: string = bundledE1ModelDir()): GloveTable {
  const hit = cache.get(modelDir);
  if (hit) return hit;
  const config = JSON.parse(readFileSync(join(modelDir, 'config.json'), 'utf8')) as { model_id: string; dim: number; vocab_size: number };
  const words = readFileSync(join(modelDir, 'vocab.txt'), 'utf8').split('\n');
  if (words[words.length - 1] === '') words.pop();
  const vocabulary = new WordVocabulary(words);
  const inits = onnxInitializers(readFileSync(join(modelDir, 'model.onnx')), ['word_table_int8']);
  const raw = inits.get('word_table_int8');
  const dim = config.dim;
  if (!raw || raw.length !== vocabulary.size * dim) throw new Error(`${modelDir}/model.onnx: no int8 word table of ${vocabulary.size} × ${dim}`);
  const rows = new Int8Array(raw.length);
  rows.set(new Int8Array(raw.buffer, raw.byteOffset, raw.length));
  const invNorm = new Float32Array(vocabulary.size);
  for (let r = 0; r < vocabulary.size; r++) {
    let s = 0;
    for (let i = r * dim; i < (r + 1) * dim; i++) s += rows[i]! * rows[i]!;
    invNorm[r] = s > 0 ? 1 / Math.sqrt(s) : 0;
  }
  const table: GloveTable = { vocabulary, dim, rows, invNorm, modelId: config.model_id };
  cache.set(modelDir, table);
  return table;
}

/** Cosine of two rows of the table. */
export function rowCosine(t: GloveTable, a: number, b: number): number {
  const d = t.dim;
  let s = 0;
  for (let i = 0, x = a * d, y = b * d; i < d; i++) s += t.rows[x + i]! * t.rows[y + i]!;
  return s * t.invNorm[a]! * t.invNorm[b]!;
}
