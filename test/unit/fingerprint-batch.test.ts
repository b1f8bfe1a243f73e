import assert from 'node:assert/strict';
import { test } from 'node:test';
import { packTerms } from '../../src/embed/keyword.js';
import type { EncoderInfo } from '../../src/embed/types.js';
import { fingerprintBatchMath } from '../../src/utl/fingerprint-batch.js';
import { addSample, centroid, K_NEAREST, spaceSimilarity, spaceUtl, type DistanceStats } from '../../src/utl/utl.js';
import type { StoredVector } from '../../src/store/fingerprints-repo.js';
import { mulberry32 } from '../helpers/prng.js';

// The batch math keeps a sliding window sum instead of re-adding the window per memory; it must
// give the numbers of the plain definition: per memory, cosines to its `window` predecessors,
// cosine to their normalised mean, the k nearest's mutual agreement, moments advanced in order.

const encoders: EncoderInfo[] = [
  { space: 'E1', modelId: 'm1', dim: 24, provider: 'model-free' },
  { space: 'E13', modelId: 'm13', dim: 0, provider: 'model-free' },
];

function unit(rand: () => number, dim: number, base: Float32Array | null): Float32Array {
  const v = new Float32Array(dim);
  let n = 0;
  for (let i = 0; i < dim; i++) {
    v[i] = (base ? base[i]! * 2 : 0) + rand() - 0.5;
    n += v[i]! * v[i]!;
  }
  for (let i = 0; i < dim; i++) v[i] = v[i]! / Math.sqrt(n);
  return v;
}

function reference(vectors: StoredVector[], nids: number[], window: number, edges: Map<number, number>) {
  const out = new Map<number, Array<{ space: string; surprise: number; coherence: number; purpose: number }>>(nids.map((n) => [n, []]));
  for (const enc of encoders) {
    let stats: DistanceStats = { n: 0, mean: 0, m2: 0 };
    const all = vectors.filter((v) => v.space === enc.space).sort((a, b) => a.nid - b.nid);
    const sparse = enc.dim === 0;
    all.forEach((v, at) => {
      if (!nids.includes(v.nid)) return;
      const refs = all.slice(Math.max(0, at - window), at);
      const sims = refs.map((r) => spaceSimilarity(sparse, v.vector, r.vector));
      const c = sparse ? null : centroid(refs.map((r) => r.vector));
      const centroidCos = c ? spaceSimilarity(false, v.vector, c) : sims.length ? sims.reduce((s, x) => s + x, 0) / sims.length : 0;
      const near = sims
        .map((s, i) => ({ s, i }))
        .sort((a, b) => b.s - a.s)
        .slice(0, K_NEAREST)
        .map((h) => refs[h.i]!.vector);
      let pair = 0;
      let pairs = 0;
      for (let i = 0; i < near.length; i++) {
        for (let j = i + 1; j < near.length; j++) {
          pair += spaceSimilarity(sparse, near[i]!, near[j]!);
          pairs++;
        }
      }
      const utl = spaceUtl({ sims, centroidCos, neighbourConsistency: pairs ? pair / pairs : 0, edges: edges.get(v.nid) ?? 0, stats });
      if (sims.length) stats = addSample(stats, utl.knnDistance);
      out.get(v.nid)!.push({ space: enc.space, surprise: utl.surprise, coherence: utl.coherence, purpose: utl.purpose });
    });
  }
  return out;
}

test('fingerprint batch math equals the plain per-memory definition (dense and sparse, window sliding past the start)', () => {
  const rand = mulberry32(11);
  const theme = unit(rand, 24, null);
  const vectors: StoredVector[] = [];
  for (let nid = 1; nid <= 60; nid++) {
    vectors.push({ nid, space: 'E1', model_id: 'm1', vector: unit(rand, 24, nid % 3 === 0 ? theme : null) });
    const ids = [...new Set(Array.from({ length: 4 }, () => 1 + Math.floor(rand() * 12)))].sort((a, b) => a - b);
    vectors.push({ nid, space: 'E13', model_id: 'm13', vector: packTerms(ids.map((id) => [id, 0.5 + rand()] as const)) });
  }
  // A vector of another model is not the space's: left out of every window.
  vectors.push({ nid: 30, space: 'E1', model_id: 'old', vector: unit(rand, 24, null) });
  const nids = Array.from({ length: 45 }, (_, i) => 16 + i);
  const edges = new Map([[20, 3]]);
  const got = fingerprintBatchMath({ encoders, nids, vectors, edges, stats: new Map(), window: 12 });
  const want = reference(
    vectors.filter((v) => v.model_id !== 'old'),
    nids,
    12,
    edges,
  );
  // The reference's moments start from nothing; so do ours (the batch carries them in order).
  for (const nid of nids) {
    const g = got.get(nid)!;
    const w = want.get(nid)!;
    assert.deepEqual(
      g.map((s) => s.space),
      w.map((s) => s.space),
    );
    g.forEach((s, i) => {
      for (const k of ['surprise', 'coherence', 'purpose'] as const) assert.ok(Math.abs(s[k] - w[i]![k]) < 1e-5, `nid ${nid} ${s.space} ${k}: ${s[k]} vs ${w[i]![k]}`);
    });
  }
  // A memory without earlier ones in the window is all new in every space.
  const first = fingerprintBatchMath({ encoders, nids: [1], vectors, edges, stats: new Map(), window: 12 }).get(1)!;
  assert.deepEqual(
    first.map((s) => s.surprise),
    [1, 1],
  );
});
