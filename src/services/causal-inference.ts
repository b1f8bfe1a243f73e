import type { Embedder } from '../embed/embedder.js';
import { causalParts, causalQuestion } from '../embed/encoders/causal.js';
import { AppError } from '../errors.js';
import type { VectorIndexes } from '../index/vector-index.js';
import type { Db } from '../store/db.js';
import { liveEdgesAround, type Direction } from '../store/edges-repo.js';
import { vectorsOfNodes } from '../store/fingerprints-repo.js';
import { liveNodesById, nodeById, nodesByNid, type NodeRecord } from '../store/nodes-repo.js';
import { filteredCandidates } from './candidates.js';
import { findCausalPath } from './navigation/causal-path.js';

export type InferDirection = 'forward' | 'backward' | 'bidirectional' | 'abduction';

export interface Inference {
  node: NodeRecord;
  /** 1 − (1 − graph)(1 − e5): either kind of evidence supports it, both support it more. */
  score: number;
  /** Product of the Causal edge weights along the strongest walk from the source; 0 when not linked. */
  graph: number;
  hops: number | null;
  /** E5 cosine between the source's side and this memory's opposite side; 0 when not a candidate there. */
  e5: number;
  /** Which way it sits from the source: an effect (forward) or a cause (backward). */
  relation: 'effect' | 'cause';
  /** The clause of this memory on the relation's side ("… because <cause>"), when it states one. */
  clause: string | null;
}

export interface CausalAnswer {
  node: NodeRecord;
  score: number;
  /** The memory's own cause (or effect) clause answering the question; null when it states none. */
  answer: string | null;
  /** Found by following a Causal edge from this hit (its id), rather than by E5. */
  via: string | null;
}

const E5 = 'E5' as const;

/**
 * Causal inference over the two kinds of stored evidence: Causal edges (src cause → dst effect,
 * weighted; written by relate and the link job) and the E5 space, whose vectors keep a memory's
 * cause clause and effect clause in separate halves (src/embed/encoders/causal.ts). Forward
 * asks which memories' cause half matches the source's effect half; backward the reverse.
 */
export class CausalInference {
  constructor(private readonly deps: { db: Db; embedder: Embedder; indexes: VectorIndexes }) {}

  private async live(id: string): Promise<NodeRecord> {
    const node = await nodeById(this.deps.db, id);
    if (!node || node.deleted_at) throw new AppError('NODE_NOT_FOUND', `No live memory has id ${id}.`, { id });
    return node;
  }

  /** The source's E5 vector under the current model (stored), or its text embedded now. */
  private async e5Of(source: NodeRecord): Promise<Float32Array> {
    const enc = this.deps.embedder.encoders().find((e) => e.space === E5);
    if (!enc) throw new AppError('INVALID_PARAMS', 'The causal space E5 has no encoder in this server.', { issues: [{ path: 'source_id', message: 'E5 not embedded' }] });
    const stored = (await vectorsOfNodes(this.deps.db, [source.nid])).find((v) => v.space === E5 && v.model_id === enc.modelId);
    if (!stored) throw new AppError('VECTORS_PENDING', `Memory ${source.id} has no E5 vector yet.`, { id: source.id });
    return stored.vector;
  }

  /** Memories of the project by E5 cosine to `vector`, best first. */
  private async nearestE5(vector: Float32Array, projectId: string, k: number, exclude: ReadonlySet<number>): Promise<Array<{ node: NodeRecord; similarity: number }>> {
    const { lists } = await filteredCandidates(this.deps, [{ name: E5, space: E5, vector }], { projectId, excludeKinds: ['entity'] }, k + exclude.size);
    const hits = lists[0]!.filter((h) => !exclude.has(h.key)).slice(0, k);
    const rows = new Map(
      (
        await nodesByNid(
          this.deps.db,
          hits.map((h) => h.key),
        )
      ).map((n) => [n.nid, n]),
    );
    return hits.flatMap((h) => {
      const node = rows.get(h.key);
      return node && !node.deleted_at && node.metadata.quarantine === undefined ? [{ node, similarity: h.similarity }] : [];
    });
  }

  /** Best walk strength (product of weights) to every node within `maxHops` Causal edges. */
  private async walk(sourceId: string, direction: Direction, maxHops: number): Promise<Map<string, { strength: number; hops: number }>> {
    const best = new Map<string, { strength: number; hops: number }>([[sourceId, { strength: 1, hops: 0 }]]);
    let frontier = [sourceId];
    for (let hop = 1; hop <= maxHops && frontier.length; hop++) {
      const edges = await liveEdgesAround(this.deps.db, { nodeIds: frontier, edgeTypes: ['Causal'], minWeight: 0, direction, limit: 5_000 });
      const next = new Set<string>();
      for (const e of edges) {
        const from = e.outgoing ? e.src : e.dst;
        const strength = (best.get(from)?.strength ?? 0) * e.weight;
        const seen = best.get(e.far_id);
        if (seen && seen.strength >= strength) continue;
        best.set(e.far_id, { strength, hops: hop });
        next.add(e.far_id);
      }
      frontier = [...next];
    }
    best.delete(sourceId);
    return best;
  }

  /**
   * forward: what the source leads to; backward: what led to it; bidirectional: both;
   * abduction: the best explanations of the source as an observed effect — memories that state
   * a cause and whose effect side matches the observation, or that reach it by Causal edges.
   */
  async infer(q: { sourceId: string; direction: InferDirection; targetId?: string | undefined; maxHops: number; limit: number; minScore: number }) {
    const source = await this.live(q.sourceId);
    const target = q.targetId ? await this.live(q.targetId) : null;
    const v = await this.e5Of(source);
    const d = (v.length - 1) / 2;
    const half = (from: number, to: number) => {
      const out = new Float32Array(v.length);
      for (let i = 0; i < d; i++) out[to + i] = v[from + i]!;
      return out;
    };
    const sides: Array<'effect' | 'cause'> = q.direction === 'forward' ? ['effect'] : q.direction === 'bidirectional' ? ['effect', 'cause'] : ['cause'];
    const found = new Map<string, Inference>();
    for (const relation of sides) {
      // Effects: memories whose cause half is like the source's effect half. Causes (backward):
      // whose effect half is like the source's cause half, the link before it; abduction: like
      // the observation itself (its effect half).
      const query = relation === 'effect' ? half(d, 0) : q.direction === 'abduction' ? half(d, d) : half(0, d);
      const near = await this.nearestE5(query, source.project_id, q.limit * 3, new Set([source.nid]));
      const reached = await this.walk(source.id, relation === 'effect' ? 'out' : 'in', q.maxHops);
      const graphNodes = await liveNodesById(
        this.deps.db,
        [...reached.keys()].filter((id) => !near.some((n) => n.node.id === id)),
      );
      const e5 = new Map(near.map((n) => [n.node.id, n.similarity]));
      for (const node of [...near.map((n) => n.node), ...graphNodes]) {
        const g = reached.get(node.id);
        const parts = causalParts(node.content);
        // Abduction explains: a candidate from E5 alone must state a cause to be an explanation.
        if (q.direction === 'abduction' && !g && !parts) continue;
        const sim = Math.max(0, e5.get(node.id) ?? 0);
        const score = 1 - (1 - (g?.strength ?? 0)) * (1 - sim);
        const prev = found.get(node.id);
        if (prev && prev.score >= score) continue;
        const clause = parts ? (relation === 'cause' ? parts.cause : parts.effect).trim() || null : null;
        found.set(node.id, { node, score, graph: g?.strength ?? 0, hops: g?.hops ?? null, e5: sim, relation, clause });
      }
    }
    const hits = [...found.values()].filter((h) => h.score >= q.minScore).sort((a, b) => b.score - a.score || a.node.nid - b.node.nid);
    let path: { found: boolean; ids: string[]; strength: number } | null = null;
    if (target) {
      const dir = q.direction === 'forward' ? 'forward' : q.direction === 'bidirectional' ? 'bidirectional' : 'backward';
      const p = await findCausalPath(this.deps.db, { sourceId: source.id, targetId: target.id, maxHops: q.maxHops, direction: dir });
      path = { found: p.found, ids: p.found ? p.path.map((n) => n.id) : [], strength: p.found ? p.hops.reduce((s, h) => s * h.weight, 1) : 0 };
    }
    return { source, hits: hits.slice(0, q.limit), considered: found.size, path };
  }

  /**
   * A causal question in words: E5 reads "why …?" as asking for memories whose effect matches
   * (and answers with their cause clause), "what did … lead to?" the reverse. Each hit's Causal
   * edges on the asked side add the memories they link, scored by the hit's score × the weight.
   */
  async query(q: { text: string; direction: 'auto' | 'causes' | 'effects'; projectId?: string | undefined; limit: number; followEdges: boolean }) {
    const asked = causalQuestion(q.text);
    const side: 'causes' | 'effects' = q.direction !== 'auto' ? q.direction : asked?.side === 'cause' ? 'effects' : 'causes';
    // The E5 encoder's own question grammar sets which half the query fills.
    const phrased = side === 'causes' ? (asked?.side === 'effect' ? q.text : `why ${q.text}`) : asked?.side === 'cause' ? q.text : `what happened because of ${q.text}`;
    const vector = (await this.deps.embedder.embed([phrased], [E5])).get(E5)?.[0];
    if (!vector) throw new AppError('INVALID_PARAMS', 'The causal space E5 has no encoder in this server.', { issues: [{ path: 'query', message: 'E5 not embedded' }] });
    const { lists } = await filteredCandidates(this.deps, [{ name: E5, space: E5, vector }], { projectId: q.projectId, excludeKinds: ['entity'] }, q.limit * 3);
    const rows = new Map(
      (
        await nodesByNid(
          this.deps.db,
          lists[0]!.map((h) => h.key),
        )
      ).map((n) => [n.nid, n]),
    );
    const answerOf = (node: NodeRecord) => {
      const parts = causalParts(node.content);
      return parts ? (side === 'causes' ? parts.cause : parts.effect).trim() || null : null;
    };
    const out = new Map<string, CausalAnswer>();
    for (const h of lists[0]!) {
      const node = rows.get(h.key);
      if (!node || node.deleted_at || node.metadata.quarantine !== undefined) continue;
      out.set(node.id, { node, score: Math.max(0, h.similarity), answer: answerOf(node), via: null });
    }
    if (q.followEdges && out.size) {
      const top = [...out.values()].sort((a, b) => b.score - a.score).slice(0, q.limit);
      const edges = await liveEdgesAround(this.deps.db, {
        nodeIds: top.map((t) => t.node.id),
        edgeTypes: ['Causal'],
        minWeight: 0,
        direction: side === 'causes' ? 'in' : 'out',
        limit: 200,
      });
      const linked = new Map((await liveNodesById(this.deps.db, [...new Set(edges.map((e) => e.far_id))])).map((n) => [n.id, n]));
      for (const e of edges) {
        const node = linked.get(e.far_id);
        const from = out.get(e.outgoing ? e.src : e.dst);
        if (!node || !from || node.metadata.quarantine !== undefined) continue;
        const score = from.score * e.weight;
        const prev = out.get(node.id);
        if (!prev || prev.score < score) out.set(node.id, { node, score, answer: node.content, via: from.node.id });
      }
    }
    const hits = [...out.values()].sort((a, b) => b.score - a.score || a.node.nid - b.node.nid).slice(0, q.limit);
    return { side, phrased, hits };
  }
}
