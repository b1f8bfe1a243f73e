import type { Embedder } from '../../embed/embedder.js';
import type { Db } from '../../store/db.js';
import { sampleMemories, sampleVectors } from '../../store/diagnostics-repo.js';

/**
 * Distances in the E1 space, against the store's own distribution: how far a text lies from its
 * nearest stored memories (embedding_outlier), and how far a memory's content lies from its own
 * topic and tags (content_misalign). Both sample the project (a stable, hash-ordered sample), so
 * the verdict changes as the project does.
 */

export const OUTLIER_SPACE = 'E1' as const;
/** Nearest neighbours whose mean distance places a text. */
export const OUTLIER_K = 5;
/** Stored memories sampled for the distribution (the whole project below this size). */
export const OUTLIER_SAMPLE = 400;
/** A text this many standard deviations beyond the mean k-NN distance is an outlier (immune-system spec: 3σ). */
export const OUTLIER_SIGMAS = 3;
/** Fewer samples than this give no distribution to compare with. */
export const MIN_DISTRIBUTION = 8;

const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * (b[i] ?? 0);
  return s;
};

function meanAndStd(values: readonly number[]): { mean: number; std: number } {
  const mean = values.reduce((s, v) => s + v, 0) / Math.max(1, values.length);
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / Math.max(1, values.length - 1);
  return { mean, std: Math.sqrt(variance) };
}

const round = (x: number) => Math.round(x * 1000) / 1000;

export interface OutlierModel {
  projectId: string;
  sample: Array<{ nid: number; vector: Float32Array }>;
  /** Mean cosine distance of each sampled memory to its k nearest other sampled memories. */
  mean: number;
  std: number;
}

/** Mean cosine distance (1 − cos) from `vector` to its `k` nearest among `sample`, skipping `excludeNid`. */
function knnDistance(sample: OutlierModel['sample'], vector: Float32Array, excludeNid: number | null): number | null {
  const sims = sample.filter((s) => s.nid !== excludeNid).map((s) => dot(vector, s.vector));
  if (sims.length === 0) return null;
  sims.sort((a, b) => b - a);
  const near = sims.slice(0, OUTLIER_K);
  return 1 - near.reduce((s, v) => s + v, 0) / near.length;
}

export async function outlierModel(db: Db, projectId: string): Promise<OutlierModel> {
  const sample = await sampleVectors(db, OUTLIER_SPACE, projectId, OUTLIER_SAMPLE);
  const distances = sample.flatMap((s) => knnDistance(sample, s.vector, s.nid) ?? []);
  return { projectId, sample, ...meanAndStd(distances) };
}

export interface OutlierVerdict {
  flagged: boolean;
  /** Mean cosine distance to the k nearest sampled memories. */
  knn_distance: number | null;
  distribution: { mean: number; std: number; sample: number };
  /** (distance − mean) / std; null without a distribution. */
  z_score: number | null;
  reason: string;
}

export function judgeOutlier(model: OutlierModel, vector: Float32Array | undefined, excludeNid: number | null = null): OutlierVerdict {
  const distribution = { mean: round(model.mean), std: round(model.std), sample: model.sample.length };
  if (!vector) return { flagged: false, knn_distance: null, distribution, z_score: null, reason: 'no E1 vector for this text' };
  const d = knnDistance(model.sample, vector, excludeNid);
  if (d === null || model.sample.length < MIN_DISTRIBUTION) {
    return {
      flagged: false,
      knn_distance: d === null ? null : round(d),
      distribution,
      z_score: null,
      reason: `only ${model.sample.length} embedded memories in ${model.projectId}; at least ${MIN_DISTRIBUTION} are needed`,
    };
  }
  const z = (d - model.mean) / Math.max(model.std, 1e-6);
  const flagged = z > OUTLIER_SIGMAS;
  return {
    flagged,
    knn_distance: round(d),
    distribution,
    z_score: round(z),
    reason: flagged
      ? `${z.toFixed(1)}σ farther from its ${OUTLIER_K} nearest memories than memories of ${model.projectId} usually are`
      : `within ${OUTLIER_SIGMAS}σ of the project's nearest-neighbour distances`,
  };
}

/** The words a label stands for: topic and tags. */
export function labelText(topic: string | null | undefined, tags: readonly string[] | undefined): string {
  return [topic ?? '', ...(tags ?? [])].filter((s) => s.trim() !== '').join(', ');
}

const stem = (w: string) => w.toLowerCase().slice(0, 5);
/** Share of the label's words (4+ letters, first five letters compared) that the content uses. */
export function labelOverlap(label: string, content: string): number {
  const words = [...new Set((label.match(/\p{L}{4,}/gu) ?? []).map(stem))];
  if (words.length === 0) return 0;
  const have = new Set((content.match(/\p{L}{4,}/gu) ?? []).map(stem));
  return words.filter((w) => have.has(w)).length / words.length;
}

export interface MisalignModel {
  projectId: string;
  /** Cosine of label and content over the project's labelled memories. */
  mean: number;
  std: number;
  sample: number;
}

/** The label↔content cosine of the project's labelled memories (a sample), embedded as a check would be. */
export async function misalignModel(db: Db, embedder: Embedder, projectId: string): Promise<MisalignModel> {
  const labelled = (await sampleMemories(db, projectId, 200)).filter((n) => labelText(n.topic, n.tags) !== '');
  if (labelled.length === 0) return { projectId, mean: 0, std: 0, sample: 0 };
  const labels = labelled.map((n) => labelText(n.topic, n.tags));
  const vectors = (await embedder.embed([...labels, ...labelled.map((n) => n.content)], [OUTLIER_SPACE])).get(OUTLIER_SPACE) ?? [];
  const cosines = labelled.map((_, i) => {
    const [l, c] = [vectors[i], vectors[i + labelled.length]];
    return l && c ? dot(l, c) : 0;
  });
  return { projectId, ...meanAndStd(cosines), sample: cosines.length };
}

export interface MisalignVerdict {
  flagged: boolean;
  label: string;
  /** E1 cosine of the label and the content. */
  cosine: number | null;
  /** Share of the label's words the content uses. */
  word_overlap: number;
  distribution: { mean: number; std: number; sample: number };
  reason: string;
}

/** Cosines at or below this say nothing about relevance (fusion.ts COSINE_FLOOR). */
const UNRELATED_COSINE = 0.2;

/**
 * Misaligned: the content uses none of the label's words and its cosine to the label is either
 * two standard deviations below the project's labelled memories or, without a distribution, at
 * most the unrelated floor.
 */
export async function judgeMisalign(embedder: Embedder, model: MisalignModel, label: string, content: string): Promise<MisalignVerdict> {
  const distribution = { mean: round(model.mean), std: round(model.std), sample: model.sample };
  if (label === '') return { flagged: false, label, cosine: null, word_overlap: 0, distribution, reason: 'no topic or tags to compare the content with' };
  const [l, c] = (await embedder.embed([label, content], [OUTLIER_SPACE])).get(OUTLIER_SPACE) ?? [];
  const cosine = l && c ? dot(l, c) : 0;
  const overlap = labelOverlap(label, content);
  const low = model.sample >= MIN_DISTRIBUTION ? cosine < model.mean - 2 * Math.max(model.std, 0.02) : cosine <= UNRELATED_COSINE;
  const flagged = overlap === 0 && low;
  return {
    flagged,
    label,
    cosine: round(cosine),
    word_overlap: round(overlap),
    distribution,
    reason: flagged
      ? `the content uses none of the words of "${label}" and its meaning is far from it (cosine ${cosine.toFixed(2)})`
      : overlap > 0
        ? `the content uses ${Math.round(overlap * 100)}% of the label's words`
        : `the content's meaning is close enough to "${label}" (cosine ${cosine.toFixed(2)})`,
  };
}
