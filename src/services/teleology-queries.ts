import type { Embedder } from '../embed/embedder.js';
import type { EncoderInfo, SpaceId } from '../embed/types.js';
import { AppError } from '../errors.js';
import type { Db } from '../store/db.js';
import { liveEdgesAround } from '../store/edges-repo.js';
import { distanceStatsOf, earlierProjectNids, edgeCountsByNid, fingerprintsByNid, liveMemoryCount, vectorsOfNodes } from '../store/fingerprints-repo.js';
import { liveNodesById, type NodeRecord } from '../store/nodes-repo.js';
import { measureSpace, REFERENCE_SIZE, utlWeight } from './fingerprints.js';
import type { SearchService } from './search.js';
import { builtinProfiles, toSignalWeights, type SpaceWeights, type TeleologyService } from './teleology.js';
import { learningMagnitude, quadrantOf, spaceSimilarity, type Quadrant, type Stage } from '../utl/utl.js';

export interface SpaceDelta {
  space: SpaceId;
  /** Cosine of the target with the reference node in this space. */
  similarity: number;
  surprise: number;
  coherence: number;
  quadrant: Quadrant;
}

export interface DeltaSc {
  reference: NodeRecord;
  target: NodeRecord | null;
  /** Graph neighbours of the reference in the ΔC context. */
  neighbours: number;
  /** Memories the ΔC context holds (the reference, its neighbours, its project's recent memories). */
  context: number;
  spaces: SpaceDelta[];
  deltaS: number;
  deltaC: number;
  learning: number;
  stage: Stage;
  quadrant: Quadrant;
}

export interface TeleologicalHit {
  node: NodeRecord;
  score: number;
  relevance: number;
  /** Centred cosine of the memory's purpose vector with the goal, in [0, 1]; null before its fingerprint exists. */
  alignment: number | null;
}

export interface FusedHit {
  node: NodeRecord;
  score: number;
  rank: number;
  defaultScore: number;
  defaultRank: number;
  bySpace: Partial<Record<SpaceId, number>>;
}

/** Graph neighbours of a reference node that join it as the reference set of gwt_compute_delta_sc. */
const NEIGHBOUR_LIMIT = 50;

/**
 * The read-only teleological questions of issue 11 over stored vectors and fingerprints:
 * ΔS/ΔC of one memory (or a candidate text) against another, search ranked by purpose
 * alignment, and per-space vector fusion under weights with its effect on a ranking.
 */
export class TeleologyQueries {
  constructor(private readonly deps: { db: Db; embedder: Embedder; search: SearchService; teleology: TeleologyService }) {}

  /** Vectors per space of a stored node under the current model ids, or of a text embedded now. */
  private async vectorsOf(source: { node: NodeRecord } | { text: string }): Promise<Map<SpaceId, Float32Array>> {
    const encoders = this.deps.embedder.encoders();
    if ('text' in source) {
      const embedded = await this.deps.embedder.embed(
        [source.text],
        encoders.map((e) => e.space),
      );
      return new Map([...embedded].flatMap(([space, vs]) => (vs[0] ? [[space, vs[0]] as const] : [])));
    }
    const current = new Map(encoders.map((e) => [e.space as string, e.modelId]));
    const out = new Map<SpaceId, Float32Array>();
    for (const v of await vectorsOfNodes(this.deps.db, [source.node.nid])) if (current.get(v.space) === v.model_id) out.set(v.space as SpaceId, v.vector);
    if (out.size === 0) throw new AppError('VECTORS_PENDING', `Memory ${source.node.id} has no vectors under the current models yet.`, { id: source.node.id });
    return out;
  }

  /**
   * ΔS/ΔC of a stored node or a candidate text against a reference node, with the fingerprint
   * job's own measure (fingerprints.ts measureSpace), twice: ΔS with the reference as the only
   * neighbour (how surprising the target is next to it, on the project's k-NN distance scale),
   * ΔC against what the reference belongs to — itself, its graph neighbours and its project's
   * recent memories, the window the fingerprint job measures against (connectivity, cluster fit,
   * consistency need a neighbourhood and a rest).
   */
  async deltaSc(q: { referenceId: string; targetId?: string | undefined; text?: string | undefined; threshold: number }): Promise<DeltaSc> {
    const { db } = this.deps;
    const reference = await this.deps.teleology.nodeOrThrow(q.referenceId);
    const target = q.targetId ? await this.deps.teleology.nodeOrThrow(q.targetId) : null;
    const around = await liveEdgesAround(db, { nodeIds: [reference.id], edgeTypes: null, minWeight: 0, direction: 'both', limit: NEIGHBOUR_LIMIT });
    const neighbourIds = [...new Set(around.map((e) => e.far_id))].filter((id) => id !== target?.id && id !== reference.id);
    const neighbours = await liveNodesById(db, neighbourIds);
    const window = await earlierProjectNids(db, { projectId: reference.project_id, beforeNid: Number.MAX_SAFE_INTEGER, limit: REFERENCE_SIZE });
    const contextNids = [...new Set([reference.nid, ...neighbours.map((n) => n.nid), ...window])].filter((nid) => nid !== target?.nid);
    const encoders = this.deps.embedder.encoders();
    const current = new Map(encoders.map((e) => [e.space as string, e.modelId]));
    const contextVectors = (await vectorsOfNodes(db, contextNids)).filter((v) => current.get(v.space) === v.model_id);
    const x = await this.vectorsOf(target ? { node: target } : { text: q.text ?? '' });
    const stats = await distanceStatsOf(db, reference.project_id);
    const edges = target ? ((await edgeCountsByNid(db, [target.nid])).get(target.nid) ?? 0) : 0;
    const spaces: SpaceDelta[] = [];
    for (const enc of encoders) {
      const v = x.get(enc.space);
      const own = contextVectors.find((r) => r.space === enc.space && r.nid === reference.nid);
      if (!v || !own) continue;
      const sparse = enc.dim === 0;
      const s0 = stats.get(enc.space) ?? { n: 0, mean: 0, m2: 0 };
      const surprise = measureSpace({ sparse, vector: v, references: [own.vector], edges, stats: s0 }).surprise;
      const refs = contextVectors.filter((r) => r.space === enc.space).map((r) => r.vector);
      const coherence = measureSpace({ sparse, vector: v, references: refs, edges, stats: s0 }).coherence;
      spaces.push({ space: enc.space, similarity: spaceSimilarity(sparse, v, own.vector), surprise, coherence, quadrant: quadrantOf(surprise, coherence, q.threshold) });
    }
    if (spaces.length === 0) throw new AppError('VECTORS_PENDING', `Memory ${reference.id} has no vectors under the current models yet.`, { id: reference.id });
    const weighted = spaces.map((s) => ({ surprise: s.surprise, coherence: s.coherence, weight: utlWeight(s.space) }));
    const total = weighted.reduce((s, w) => s + w.weight, 0);
    const deltaS = weighted.reduce((s, w) => s + w.weight * w.surprise, 0) / total;
    const deltaC = weighted.reduce((s, w) => s + w.weight * w.coherence, 0) / total;
    const { learning, stage } = learningMagnitude(weighted, await liveMemoryCount(db, reference.project_id));
    return {
      reference,
      target,
      neighbours: neighbours.length,
      context: contextNids.length,
      spaces,
      deltaS,
      deltaC,
      learning,
      stage,
      quadrant: quadrantOf(deltaS, deltaC, q.threshold),
    };
  }

  /** A goal as one weight per space: a profile's weights, or a memory's purpose vector. */
  async goalVector(goal: { profile?: string | undefined; nodeId?: string | undefined; projectId?: string | undefined }): Promise<{ name: string; weights: SpaceWeights }> {
    if (goal.nodeId) {
      const { node, fingerprint } = await this.deps.teleology.fingerprint(goal.nodeId);
      if (!fingerprint) throw new AppError('VECTORS_PENDING', `Memory ${node.id} has no fingerprint yet.`, { id: node.id });
      return { name: `purpose of ${node.id}`, weights: Object.fromEntries(fingerprint.spaces.map((s, i) => [s, fingerprint.purpose[i]!])) };
    }
    const name = goal.profile ?? 'default';
    const profile = name === 'learned' && goal.projectId ? await this.deps.teleology.learnedProfile(goal.projectId) : await this.deps.teleology.profile(name);
    return { name: profile.name, weights: profile.weights };
  }

  /**
   * Search re-ranked by purpose alignment: the fused search finds candidates, and each one's
   * score is (1 − α)·relevance + α·alignment, where alignment is the centred cosine of its
   * purpose vector with the goal's weights, mapped to [0, 1] (a memory whose purpose peaks in
   * the spaces the goal weighs most scores high).
   */
  async searchTeleological(q: {
    text: string;
    projectId?: string | undefined;
    goal: { profile?: string | undefined; nodeId?: string | undefined };
    alignmentWeight: number;
    minAlignment: number;
    limit: number;
  }): Promise<{ goal: { name: string; weights: SpaceWeights }; hits: TeleologicalHit[]; considered: number }> {
    const goal = await this.goalVector({ ...q.goal, projectId: q.projectId });
    const { hits } = await this.deps.search.hybrid({ text: q.text, projectId: q.projectId, limit: Math.min(50, q.limit * 4), excludeKinds: ['entity'] });
    const fps = new Map(
      (
        await fingerprintsByNid(
          this.deps.db,
          hits.map((h) => h.node.nid),
        )
      ).map((f) => [f.node_nid, f]),
    );
    const out = hits.flatMap((h) => {
      const f = fps.get(h.node.nid);
      const alignment = f
        ? centredAlignment(
            f.purpose,
            f.spaces.map((s) => goal.weights[s as SpaceId] ?? 0),
          )
        : null;
      if ((alignment ?? 0) < q.minAlignment) return [];
      return [{ node: h.node, relevance: h.score, alignment, score: (1 - q.alignmentWeight) * h.score + q.alignmentWeight * (alignment ?? 0) }];
    });
    out.sort((a, b) => b.score - a.score || a.node.nid - b.node.nid);
    return { goal, hits: out.slice(0, q.limit), considered: hits.length };
  }

  /**
   * Fuses the per-space vectors of a node or text with weights: the fused vector is the
   * concatenation of the dense vectors scaled by √(weight share) (so the dot product of two fused
   * vectors is the weighted mean of their per-space cosines), and the ranking of the candidates
   * both weightings' searches find, by that weighted mean, under these weights and the default ones.
   */
  async fuse(q: { nodeId?: string | undefined; text?: string | undefined; projectId?: string | undefined; weights: SpaceWeights; limit: number }) {
    const node = q.nodeId ? await this.deps.teleology.nodeOrThrow(q.nodeId) : null;
    const text = node ? node.content : (q.text ?? '');
    const projectId = node?.project_id ?? q.projectId;
    const vectors = await this.vectorsOf(node ? { node } : { text });
    const encoders = this.deps.embedder.encoders().filter((e) => vectors.has(e.space));
    const defaults = builtinProfiles().find((p) => p.name === 'default')!.weights;
    const share = (w: SpaceWeights) => {
      const total = encoders.reduce((s, e) => s + (w[e.space] ?? 0), 0);
      return new Map(encoders.map((e) => [e.space, total > 0 ? (w[e.space] ?? 0) / total : 0]));
    };
    const shares = share(q.weights);
    if (![...shares.values()].some((s) => s > 0))
      throw new AppError('INVALID_PARAMS', 'The weights give no embedded space a weight above 0.', { issues: [{ path: 'weights', message: 'all zero for the embedded spaces' }] });
    const defaultShares = share(defaults);
    const dense = encoders.filter((e) => e.dim > 0 && (shares.get(e.space) ?? 0) > 0);
    const dims = dense.reduce((s, e) => s + e.dim, 0);
    let norm2 = 0;
    for (const e of dense) for (const x of vectors.get(e.space)!) norm2 += (shares.get(e.space) ?? 0) * x * x;

    const found = await Promise.all(
      [q.weights, defaults].map((w) => this.deps.search.hybrid({ text, projectId, limit: Math.min(50, q.limit * 2), weights: toSignalWeights(w), excludeKinds: ['entity'] })),
    );
    const nodes = new Map(found.flatMap((r) => r.hits.map((h) => [h.node.nid, h.node] as const)).filter(([nid]) => nid !== node?.nid));
    const candidateVectors = await vectorsOfNodes(this.deps.db, [...nodes.keys()]);
    const current = new Map(encoders.map((e) => [e.space as string, e]));
    const scored = [...nodes.values()].map((n) => {
      const bySpace: Partial<Record<SpaceId, number>> = {};
      for (const v of candidateVectors) {
        const enc = current.get(v.space);
        if (v.nid !== n.nid || !enc || enc.modelId !== v.model_id) continue;
        bySpace[enc.space] = Math.round(spaceSimilarity(enc.dim === 0, vectors.get(enc.space)!, v.vector) * 1e4) / 1e4;
      }
      const fused = (s: Map<SpaceId, number>) => weightedMean(bySpace, s);
      return { node: n, bySpace, score: fused(shares), defaultScore: fused(defaultShares) };
    });
    const rankBy = (key: 'score' | 'defaultScore') => new Map([...scored].sort((a, b) => b[key] - a[key] || a.node.nid - b.node.nid).map((h, i) => [h.node.nid, i + 1]));
    const ranks = rankBy('score');
    const defaultRanks = rankBy('defaultScore');
    const hits: FusedHit[] = scored
      .map((h) => ({ ...h, rank: ranks.get(h.node.nid)!, defaultRank: defaultRanks.get(h.node.nid)! }))
      .sort((a, b) => a.rank - b.rank)
      .slice(0, q.limit);
    return {
      node,
      spaces: encoders.map((e: EncoderInfo) => ({ space: e.space, dim: e.dim, weight: q.weights[e.space] ?? 0, share: shares.get(e.space) ?? 0 })),
      dims,
      norm: Math.sqrt(norm2),
      hits,
      moved: scored.filter((h) => ranks.get(h.node.nid) !== defaultRanks.get(h.node.nid)).length,
      candidates: scored.length,
    };
  }
}

/** Σ share·cosine over the spaces both vectors have, renormalised by the shares present. */
function weightedMean(bySpace: Partial<Record<SpaceId, number>>, shares: Map<SpaceId, number>): number {
  let sum = 0;
  let total = 0;
  for (const [space, share] of shares) {
    const c = bySpace[space];
    if (c === undefined || share <= 0) continue;
    sum += share * c;
    total += share;
  }
  return total > 0 ? sum / total : 0;
}

/** Pearson correlation of two vectors mapped to [0, 1]; ½ when either is flat (no preference). */
export function centredAlignment(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  if (n < 2) return 0.5;
  const ma = a.slice(0, n).reduce((s, x) => s + x, 0) / n;
  const mb = b.slice(0, n).reduce((s, x) => s + x, 0) / n;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < n; i++) {
    const x = a[i]! - ma;
    const y = b[i]! - mb;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na > 1e-12 && nb > 1e-12 ? (dot / Math.sqrt(na * nb) + 1) / 2 : 0.5;
}
