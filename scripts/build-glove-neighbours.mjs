#!/usr/bin/env node
// Builds assets/e6-neighbours/: for each of the first N words of the bundled E1 vocabulary
// (assets/e1-glove, frequency order), its K nearest other words among those N by cosine of the
// GloVe rows, exact (brute force, deterministic: the same model.onnx gives byte-identical files).
// E6 (src/embed/encoders/expansion.ts) reads it. Run after `npm run build`:
//   node scripts/build-glove-neighbours.mjs [--words 30000] [--k 10]
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadGloveTable } from '../dist/src/embed/glove-table.js';
import { bundledE1ModelDir } from '../dist/src/embed/bundled.js';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('words', 30000);
const K = arg('k', 10);
if (N > 65536) throw new Error('neighbour ids are uint16: at most 65,536 words');
const t = loadGloveTable();
const D = t.dim;
const vec = new Float32Array(N * D);
for (let r = 0; r < N; r++) for (let i = 0; i < D; i++) vec[r * D + i] = t.rows[r * D + i] * t.invNorm[r];
const ids = new Uint16Array(N * K);
const sims = new Uint8Array(N * K);
const sc = new Float32Array(N);
const started = Date.now();
for (let a = 0; a < N; a++) {
  const x = a * D;
  for (let b = 0; b < N; b++) {
    let s = 0;
    const y = b * D;
    for (let i = 0; i < D; i++) s += vec[x + i] * vec[y + i];
    sc[b] = s;
  }
  sc[a] = -Infinity;
  // Top K by selection (K is small); ties go to the more frequent word (lower row).
  for (let k = 0; k < K; k++) {
    let best = 0;
    for (let b = 1; b < N; b++) if (sc[b] > sc[best]) best = b;
    ids[a * K + k] = best;
    sims[a * K + k] = Math.max(0, Math.min(255, Math.round(sc[best] * 255)));
    sc[best] = -Infinity;
  }
  if (a % 2000 === 0) console.log(`${a}/${N} words, ${((Date.now() - started) / 1000).toFixed(0)} s`);
}
const out = join(process.cwd(), 'assets', 'e6-neighbours');
mkdirSync(out, { recursive: true });
const bin = Buffer.concat([Buffer.from(ids.buffer), Buffer.from(sims.buffer)]);
writeFileSync(join(out, 'neighbours.bin'), bin);
const sha = (b) => createHash('sha256').update(b).digest('hex');
const config = {
  words: N,
  k: K,
  layout: `uint16 little-endian neighbour rows [${N}, ${K}], then uint8 cosine × 255 [${N}, ${K}]; best first`,
  source: { model_id: t.modelId, 'model.onnx': sha(readFileSync(join(bundledE1ModelDir(), 'model.onnx'))) },
  recipe: `first ${N} words of vocab.txt, exact cosine of the int8 GloVe rows, top ${K} other words among them`,
  files: { 'neighbours.bin': sha(bin) },
};
writeFileSync(join(out, 'config.json'), JSON.stringify(config, null, 2) + '\n');
console.log(`wrote ${out}: ${bin.length} bytes in ${((Date.now() - started) / 1000).toFixed(0)} s`);
