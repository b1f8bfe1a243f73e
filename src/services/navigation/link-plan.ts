import type { Embedder } from '../../embed/embedder.js';
import type { Db } from '../../store/db.js';
import { adjacentInSequence, earlierInSequence, vectorsOf } from '../../store/navigation-repo.js';
import { nodesByNid, type NodeRecord } from '../../store/nodes-repo.js';
import { causalStatements } from './cause-text.js';
import { hierarchyStatements } from './hierarchy-text.js';
import { LINK_SPACE, type NearestMemories } from './nearest.js';

/** The automatic edge kinds; Relational edges only come from `relate`. */
export const LINK_KINDS = ['Semantic', 'Temporal', 'Causal', 'Hierarchical'] as const;
export type LinkKind = (typeof LINK_KINDS)[number];

/** Recorded on every automatic edge (metadata.version): bump when a method's rules change. */
export const LINK_VERSION = 1;
/** E1 cosine from which two memories are Semantic neighbours (IDF-weighted GloVe: unrelated turns score 0.1–0.55, paraphrases 0.7–0.9). */
export const SEMANTIC_MIN_SIMILARITY = 0.75;
/** Semantic neighbours kept per memory. */
export const SEMANTIC_NEIGHBOURS = 5;
/** E1 cosine from which a cause/effect clause is taken to be another memory's statement. */
export const CLAUSE_MIN_SIMILARITY = 0.8;
/** A clause may also name an earlier turn of the same conversation, at this lower E1 cosine (replies refer back in fewer words). */
export const CLAUSE_MIN_SIMILARITY_IN_SEQUENCE = 0.58;
/** Earlier turns of the conversation a clause is compared with. */
const SEQUENCE_WINDOW = 20;
/** Weight of a Causal edge to the previous turn from a cue opening a reply ("Because …", "So …"). */
const OPENING_CUE_WEIGHT = 0.7;

/** One end of a planned edge: a memory (by id) or an entity to find or create by name. */
export type PlannedEnd = { id: string } | { entity: string };

export interface PlannedEdge {
  src: PlannedEnd;
  dst: PlannedEnd;
  edge_type: LinkKind;
  predicate: string;
  weight: number;
  confidence: number;
  metadata: Record<string, unknown>;
}

export interface PlanDeps {
  db: Db;
  embedder: Pick<Embedder, 'embed'>;
  nearest: NearestMemories;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Which sequence a memory belongs to: its source, else the session its metadata names. */
export function sequenceKey(node: Pick<NodeRecord, 'source_uri' | 'metadata'>): { column: 'source_uri' | 'session'; value: string } | null {
  if (node.source_uri) return { column: 'source_uri', value: node.source_uri };
  const session = node.metadata?.['session'];
  return typeof session === 'string' && session.length > 0 ? { column: 'session', value: session } : null;
}

async function e1Vectors(deps: PlanDeps, texts: string[]): Promise<Float32Array[]> {
  if (texts.length === 0) return [];
  return (await deps.embedder.embed(texts, [LINK_SPACE])).get(LINK_SPACE) ?? [];
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * (b[i] ?? 0);
    na += a[i]! * a[i]!;
    nb += (b[i] ?? 0) ** 2;
  }
  return dot / (Math.sqrt(na * nb) || 1);
}

/**
 * The memory a clause states: the nearest other memory of the project at CLAUSE_MIN_SIMILARITY,
 * or an earlier turn of the same conversation at the lower in-sequence bar, whichever is closer.
 */
async function clauseMatch(
  deps: PlanDeps,
  node: NodeRecord,
  vector: Float32Array | undefined,
  earlier: readonly NodeRecord[],
  earlierVectors: ReadonlyMap<number, Float32Array>,
): Promise<{ node: NodeRecord; similarity: number; scope: string } | null> {
  if (!vector) return null;
  let best: { node: NodeRecord; similarity: number; scope: string } | null = null;
  for (const turn of earlier) {
    const v = earlierVectors.get(turn.nid);
    const s = v ? cosine(vector, v) : 0;
    if (s >= CLAUSE_MIN_SIMILARITY_IN_SEQUENCE && (!best || s > best.similarity)) best = { node: turn, similarity: s, scope: 'sequence' };
  }
  const hit = (await deps.nearest.nearest(node.project_id, vector, 3)).find((h) => h.nid !== node.nid && h.similarity >= CLAUSE_MIN_SIMILARITY);
  if (hit && (!best || hit.similarity > best.similarity)) {
    const [other] = await nodesByNid(deps.db, [hit.nid]);
    if (other && other.deleted_at === null) best = { node: other, similarity: hit.similarity, scope: 'project' };
  }
  return best;
}

/**
 * The edges the text and position of one memory call for, of the kinds asked. Reads only: the
 * job writes them in one transaction, skipping those that already exist.
 */
export async function planEdges(deps: PlanDeps, node: NodeRecord, kinds: ReadonlySet<LinkKind>, jobId: string): Promise<PlannedEdge[]> {
  const plans: PlannedEdge[] = [];
  const meta = (method: string, extra: Record<string, unknown> = {}) => ({ method, job_id: jobId, version: LINK_VERSION, ...extra });
  const me = { id: node.id };
  const key = sequenceKey(node);
  const previous = key && (kinds.has('Temporal') || kinds.has('Causal')) ? await adjacentInSequence(deps.db, node, key, 'previous') : null;

  if (kinds.has('Semantic')) {
    const vector = (await vectorsOf(deps.db, LINK_SPACE, [node.nid])).get(node.nid) ?? (await e1Vectors(deps, [node.topic ? `${node.topic}\n${node.content}` : node.content]))[0];
    if (vector) {
      const hits = await deps.nearest.nearest(node.project_id, vector, SEMANTIC_NEIGHBOURS + 1);
      const near = hits.filter((h) => h.nid !== node.nid && h.similarity >= SEMANTIC_MIN_SIMILARITY).slice(0, SEMANTIC_NEIGHBOURS);
      const others = new Map(
        (
          await nodesByNid(
            deps.db,
            near.map((h) => h.nid),
          )
        ).map((n) => [n.nid, n]),
      );
      for (const h of near) {
        const other = others.get(h.nid);
        if (!other || other.deleted_at !== null) continue;
        const s = round(h.similarity);
        plans.push({
          src: me,
          dst: { id: other.id },
          edge_type: 'Semantic',
          predicate: 'similar_to',
          weight: s,
          confidence: s,
          metadata: meta('e1_knn', { score: s, space: LINK_SPACE }),
        });
      }
    }
  }

  if (kinds.has('Temporal') && key) {
    const next = await adjacentInSequence(deps.db, node, key, 'next');
    for (const [from, to] of [
      [previous, node],
      [node, next],
    ] as const) {
      if (!from || !to) continue;
      const gap = Math.abs((to.valid_from ?? to.created_at).getTime() - (from.valid_from ?? from.created_at).getTime()) / 1000;
      plans.push({
        src: { id: from.id },
        dst: { id: to.id },
        edge_type: 'Temporal',
        predicate: 'followed_by',
        weight: 1,
        confidence: 1,
        metadata: meta('sequence', { [key.column]: key.value, gap_seconds: Math.round(gap) }),
      });
    }
  }

  if (kinds.has('Causal')) {
    const statements = causalStatements(node.content);
    const clauses = await e1Vectors(
      deps,
      statements.filter((s) => s.clause !== '').map((s) => s.clause),
    );
    const earlier = key && statements.some((s) => s.clause !== '') ? await earlierInSequence(deps.db, node, key, SEQUENCE_WINDOW) : [];
    const earlierVectors = await vectorsOf(
      deps.db,
      LINK_SPACE,
      earlier.map((n) => n.nid),
    );
    let c = 0;
    for (const s of statements) {
      const cue = `cue:${s.cue}`;
      // The memory stands for the clause before the cue; the other side is the previous turn or the memory the clause after it states.
      if (s.opensText && previous) {
        const [src, dst] = s.role === 'cause_follows' ? [me, { id: previous.id }] : [{ id: previous.id }, me];
        plans.push({
          src,
          dst,
          edge_type: 'Causal',
          predicate: 'causes',
          weight: OPENING_CUE_WEIGHT,
          confidence: OPENING_CUE_WEIGHT,
          metadata: meta(cue, { score: OPENING_CUE_WEIGHT, matched: 'previous_turn' }),
        });
      }
      if (s.clause === '') continue;
      const match = await clauseMatch(deps, node, clauses[c++], earlier, earlierVectors);
      if (!match || (s.opensText && previous && match.node.id === previous.id)) continue;
      const score = round(match.similarity);
      const [src, dst] = s.role === 'cause_follows' ? [{ id: match.node.id }, me] : [me, { id: match.node.id }];
      plans.push({
        src,
        dst,
        edge_type: 'Causal',
        predicate: 'causes',
        weight: score,
        confidence: score,
        metadata: meta(cue, { score, matched: `nearest_clause_in_${match.scope}`, clause: s.clause.slice(0, 200) }),
      });
    }
  }

  if (kinds.has('Hierarchical')) {
    if (node.topic)
      plans.push({
        src: me,
        dst: { entity: node.topic.trim().toLowerCase() },
        edge_type: 'Hierarchical',
        predicate: 'in_topic',
        weight: 1,
        confidence: 1,
        metadata: meta('topic'),
      });
    for (const tag of node.tags)
      plans.push({ src: me, dst: { entity: tag.trim().toLowerCase() }, edge_type: 'Hierarchical', predicate: 'tagged', weight: 1, confidence: 1, metadata: meta('tag') });
    for (const h of hierarchyStatements(node.content)) {
      plans.push({
        src: { entity: h.child },
        dst: { entity: h.parent },
        edge_type: 'Hierarchical',
        predicate: h.relation,
        weight: 0.8,
        confidence: 0.8,
        metadata: meta(`pattern:${h.relation}`, { score: 0.8, source_node: node.id }),
      });
    }
  }
  return plans;
}
