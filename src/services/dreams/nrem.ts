import { newId } from '../../ids.js';
import { insertEdge, type EdgeRecord } from '../../store/edges-repo.js';
import { liveEdgesAmong, lockLiveEdges, setEdgeWeight, unusedAutomaticEdges } from '../../store/dreams-repo.js';
import { fingerprintsByNid } from '../../store/fingerprints-repo.js';
import { recentlyAccessed } from '../../store/navigation-repo.js';
import { insertNode, type NodeRecord } from '../../store/nodes-repo.js';
import { SUMMARIZES, SUMMARY_KIND } from '../summaries.js';
import { edgeEnds } from '../graph-embedding.js';
import { image, newNode, writeTransaction } from '../writes.js';
import { clusterTopic, planClusters, type ClusterPlan } from './consolidate.js';
import { decayed, hebbian, noisyOr, pairKey, replayOrder, WEIGHT_FLOOR, type CoRetrievalEvent, type PairEvidence } from './evidence.js';
import { loadEvidence, type Evidence, type PhaseEnv } from './phase-env.js';
import { pathsFrom } from './walk.js';

/** Recent memories one NREM phase considers for replay at most. */
const REPLAY_MAX = 500;
const DAY_MS = 86_400_000;

export interface NremPlan {
  replayed: NodeRecord[];
  /** Existing edges between co-retrieved memories, with the co-retrievals not yet applied to them. */
  strengthen: Array<{ edgeId: string; events: CoRetrievalEvent[] }>;
  /** Co-retrieved pairs that no path joins within maxHops: a new association edge each. */
  associate: PairEvidence[];
  clusters: ClusterPlan[];
  decay: string[];
  retrievalsRead: number;
}

export interface PhaseOutcome {
  txId: number | null;
  counts: Record<string, number>;
  /** Nodes the phase created (summaries), to embed once it committed. */
  createdNids: number[];
  /** Ids of the nodes at either end of the edges the phase added, re-weighted or decayed: their E8 vectors move. */
  edgeEnds: string[];
}

/** The retrieval up to which an edge's co-retrievals were applied (so evidence is never counted twice). */
function hebbianThrough(e: EdgeRecord): number {
  const v = e.metadata?.['hebbian_through'];
  return typeof v === 'number' ? v : 0;
}

/** When an automatic edge was last used: created, strengthened (last_used_at) or decayed (decayed_at), the latest. */
function lastTouched(e: EdgeRecord): number {
  const times = [new Date(e.created_at).getTime()];
  for (const k of ['last_used_at', 'decayed_at']) {
    const v = e.metadata?.[k];
    if (typeof v === 'string') times.push(new Date(v).getTime());
  }
  return Math.max(...times);
}

/**
 * NREM, reading only: replay the recent memories with the highest learning magnitude L first;
 * for each, strengthen the edges to the memories it was retrieved together with (Hebbian) or plan
 * a new association when nothing joins them within maxHops (closer pairs are REM's shortcuts),
 * and look for its near-duplicates; then the automatic edges nobody used lately decay.
 */
export async function planNrem(env: PhaseEnv): Promise<NremPlan> {
  const evidence = await loadEvidence(env);
  const replay = await replaySet(env, evidence);
  const pairsOf = new Map<string, PairEvidence[]>();
  for (const p of evidence.pairs.values()) for (const id of [p.a, p.b]) pairsOf.set(id, [...(pairsOf.get(id) ?? []), p]);
  const byPair = new Map<string, EdgeRecord[]>();
  for (const e of await liveEdgesAmong(env.db, [...evidence.nodes.keys()])) byPair.set(pairKey(e.src, e.dst), [...(byPair.get(pairKey(e.src, e.dst)) ?? []), e]);

  const replayed: NodeRecord[] = [];
  const strengthen: NremPlan['strengthen'] = [];
  const unconnected: PairEvidence[] = [];
  const done = new Set<string>();
  for (const [i, m] of replay.entries()) {
    await env.run.checkpoint();
    if (!env.run.spend()) break;
    replayed.push(m);
    for (const p of pairsOf.get(m.id) ?? []) {
      const key = pairKey(p.a, p.b);
      if (done.has(key)) continue;
      done.add(key);
      const edges = byPair.get(key);
      if (edges) {
        for (const e of edges) {
          const events = p.events.filter((ev) => ev.retrievalId > hebbianThrough(e));
          if (events.length > 0) strengthen.push({ edgeId: e.id, events });
        }
      } else if (p.events.length >= env.minCoRetrievals) unconnected.push(p);
    }
    if (i % 25 === 24) await env.report('replay', i + 1, replay.length, { replayed: replayed.length, to_strengthen: strengthen.length });
  }
  const associate = await farApart(env, unconnected);
  await env.report('near-duplicates', 0, replayed.length, { replayed: replayed.length });
  const clusters = await planClusters(env, replayed);
  const touched = new Set(strengthen.map((s) => s.edgeId));
  const decay = await planDecay(env, evidence, touched);
  return { replayed, strengthen, associate, clusters, decay, retrievalsRead: evidence.retrievals.length };
}

/** Memories read, written or retrieved since `since`, in replay order (highest L first). */
export async function replaySet(env: PhaseEnv, evidence: Evidence): Promise<NodeRecord[]> {
  const recency = new Map<string, number>();
  const nodes = new Map<string, NodeRecord>();
  for (const n of await recentlyAccessed(env.db, { sessionId: null, projectId: env.projectId, since: env.since, limit: REPLAY_MAX })) {
    if (n.kind === SUMMARY_KIND) continue;
    nodes.set(n.id, n);
    recency.set(n.id, new Date(n.accessed_at).getTime());
  }
  for (const r of evidence.retrievals) {
    for (const h of r.hits) {
      const n = evidence.nodes.get(h.id);
      if (!n || n.kind === SUMMARY_KIND) continue;
      nodes.set(n.id, n);
      recency.set(n.id, Math.max(recency.get(n.id) ?? 0, new Date(r.at).getTime()));
    }
  }
  const learning = new Map(
    (
      await fingerprintsByNid(
        env.db,
        [...nodes.values()].map((n) => n.nid),
      )
    ).map((f) => [f.node_nid, f.learning]),
  );
  return replayOrder([...nodes.values()].map((n) => ({ node: n, learning: learning.get(n.nid) ?? null, recency: recency.get(n.id) ?? 0 })))
    .slice(0, REPLAY_MAX)
    .map((x) => x.node);
}

/** The pairs no path of at most maxHops joins (Shortcut edges not counted). */
async function farApart(env: PhaseEnv, pairs: readonly PairEvidence[]): Promise<PairEvidence[]> {
  const bySource = new Map<string, PairEvidence[]>();
  for (const p of pairs) bySource.set(p.a, [...(bySource.get(p.a) ?? []), p]);
  const out: PairEvidence[] = [];
  for (const [a, list] of bySource) {
    if (env.run.exhausted()) break;
    const found = await pathsFrom(env.db, a, new Set(list.map((p) => p.b)), { maxHops: env.maxHops, ignoreTypes: ['Shortcut'], run: env.run });
    out.push(...list.filter((p) => !found.has(p.b)));
  }
  return out;
}

/** Automatic edges idle for unusedDays (and not retrieved together lately) whose weight would drop. */
async function planDecay(env: PhaseEnv, evidence: Evidence, touched: ReadonlySet<string>): Promise<string[]> {
  const limit = Math.min(env.run.remaining(), 5_000);
  if (limit <= 0) return [];
  const edges = await unusedAutomaticEdges(env.db, { projectId: env.projectId, unusedBefore: new Date(env.now.getTime() - env.unusedDays * DAY_MS), floor: WEIGHT_FLOOR, limit });
  env.run.spend(Math.max(1, edges.length));
  return edges
    .filter((e) => !touched.has(e.id) && !evidence.pairs.has(pairKey(e.src, e.dst)))
    .filter((e) => e.weight - decayed(e.weight, (env.now.getTime() - lastTouched(e)) / DAY_MS) >= 0.001)
    .map((e) => e.id);
}

/** Writes an NREM plan as one transaction (op dream.nrem): all of it, or nothing when aborted. */
export async function applyNrem(env: PhaseEnv, plan: NremPlan, op = 'dream.nrem'): Promise<PhaseOutcome> {
  const now = env.now.toISOString();
  const counts = { strengthened: 0, associations_created: 0, summaries_created: 0, provenance_edges: 0, decayed: 0 };
  const createdNids: number[] = [];
  const committed = await writeTransaction(env.db, op, { actor: env.actor, rationale: `dream ${env.dreamId}: ${op}` }, async (tx, log) => {
    const locked = new Map((await lockLiveEdges(tx, [...plan.strengthen.map((s) => s.edgeId), ...plan.decay])).map((e) => [e.id, e]));
    for (const [i, s] of plan.strengthen.entries()) {
      if (i % 100 === 99) await env.run.checkpoint(tx);
      const e = locked.get(s.edgeId);
      const events = e ? s.events.filter((ev) => ev.retrievalId > hebbianThrough(e)) : [];
      if (!e || events.length === 0) continue;
      const priorCount = typeof e.metadata['co_retrievals'] === 'number' ? e.metadata['co_retrievals'] : 0;
      const meta = { ...e.metadata, last_used_at: now, hebbian_through: Math.max(...events.map((ev) => ev.retrievalId)), co_retrievals: priorCount + events.length };
      const row = await setEdgeWeight(
        tx,
        e.id,
        hebbian(
          e.weight,
          events.map((ev) => ev.strength),
        ),
        meta,
      );
      log({ entity: 'edge', entityId: e.id, before: image(e), after: image(row) });
      counts.strengthened++;
    }
    // Pairs an edge joined since planning (another writer) are left alone: one read for all.
    const joined = new Set((await liveEdgesAmong(tx, [...new Set(plan.associate.flatMap((p) => [p.a, p.b]))])).map((e) => pairKey(e.src, e.dst)));
    for (const [i, p] of plan.associate.entries()) {
      if (i % 100 === 99) await env.run.checkpoint(tx);
      if (joined.has(pairKey(p.a, p.b))) continue;
      const strengths = p.events.map((ev) => ev.strength);
      const edge = await insertEdge(tx, {
        id: newId(),
        src: p.a,
        dst: p.b,
        edge_type: 'Semantic',
        predicate: 'co_retrieved',
        weight: hebbian(0, strengths),
        confidence: noisyOr(strengths),
        metadata: {
          method: 'hebbian',
          dream_id: env.dreamId,
          last_used_at: now,
          hebbian_through: Math.max(...p.events.map((ev) => ev.retrievalId)),
          co_retrievals: p.events.length,
        },
        valid_from: null,
        valid_to: null,
      });
      log({ entity: 'edge', entityId: edge.id, before: null, after: image(edge) });
      counts.associations_created++;
    }
    for (const id of plan.decay) {
      const e = locked.get(id);
      if (!e) continue;
      const weight = decayed(e.weight, (env.now.getTime() - lastTouched(e)) / DAY_MS);
      if (e.weight - weight < 0.001) continue;
      const row = await setEdgeWeight(tx, e.id, weight, { ...e.metadata, decayed_at: now });
      log({ entity: 'edge', entityId: e.id, before: image(e), after: image(row) });
      counts.decayed++;
    }
    await env.run.checkpoint(tx);
    for (const c of plan.clusters) {
      const summary = await insertNode(tx, {
        ...newNode({ kind: SUMMARY_KIND, project_id: env.projectId, content: c.content }),
        topic: clusterTopic(c.members),
        tags: [...new Set(c.members.flatMap((m) => m.tags))].slice(0, 32),
        importance: Math.max(...c.members.map((m) => m.importance)),
        metadata: {
          summary: { method: c.method, model: c.model, source_ids: c.members.map((m) => m.id) },
          dream: { id: env.dreamId, min_similarity: c.minSimilarity, cluster: c.members.length },
        },
      });
      log({ entity: 'node', entityId: summary.id, before: null, after: image(summary) });
      createdNids.push(summary.nid);
      counts.summaries_created++;
      for (const m of c.members) {
        const edge = await insertEdge(tx, {
          id: newId(),
          src: summary.id,
          dst: m.id,
          edge_type: 'Relational',
          predicate: SUMMARIZES,
          weight: 1,
          confidence: 1,
          metadata: { dream_id: env.dreamId, similarity_floor: c.minSimilarity },
          valid_from: null,
          valid_to: null,
        });
        log({ entity: 'edge', entityId: edge.id, before: null, after: image(edge) });
        counts.provenance_edges++;
      }
    }
    // The last chance to stop: past this point the phase commits whole.
    await env.run.checkpoint(tx);
  });
  return { txId: committed.txId || null, counts, createdNids, edgeEnds: edgeEnds(committed.changes) };
}
