import { newId } from '../../ids.js';
import { findLiveEdgeEitherWay, insertEdge } from '../../store/edges-repo.js';
import { liveEdgesAmong } from '../../store/dreams-repo.js';
import { edgeEnds } from '../graph-embedding.js';
import { image, writeTransaction } from '../writes.js';
import { noisyOr, pairKey, type PairEvidence } from './evidence.js';
import type { PhaseOutcome } from './nrem.js';
import { loadEvidence, type PhaseEnv } from './phase-env.js';
import { pathsFrom, type WalkPath } from './walk.js';

/** Shortcuts replace paths of at least this many hops (one hop is an edge already: Hebbian's). */
export const SHORTCUT_MIN_HOPS = 2;
/** Query texts kept on a shortcut as its evidence. */
const QUERIES_KEPT = 3;

export interface ShortcutPlan {
  pair: PairEvidence;
  path: WalkPath;
  confidence: number;
}

export interface RemPlan {
  shortcuts: ShortcutPlan[];
  candidates: number;
  retrievalsRead: number;
}

/**
 * REM, reading only: the pairs recent queries reached together (at least minCoRetrievals times)
 * that the graph joins only through a path of 2..maxHops hops, most confident first. Confidence is
 * the noisy-OR of their co-retrievals' strengths: each retrieval that returned both, with scores
 * s_a and s_b, is independent evidence s_a·s_b that they belong together.
 */
export async function planRem(env: PhaseEnv): Promise<RemPlan> {
  const evidence = await loadEvidence(env);
  const adjacent = new Set((await liveEdgesAmong(env.db, [...evidence.nodes.keys()])).map((e) => pairKey(e.src, e.dst)));
  const candidates = [...evidence.pairs.values()]
    .filter((p) => p.events.length >= env.minCoRetrievals && !adjacent.has(pairKey(p.a, p.b)))
    .map((p) => ({ pair: p, confidence: noisyOr(p.events.map((e) => e.strength)) }))
    .sort((x, y) => y.confidence - x.confidence || (x.pair.a < y.pair.a ? -1 : 1));
  const bySource = new Map<string, typeof candidates>();
  for (const c of candidates) bySource.set(c.pair.a, [...(bySource.get(c.pair.a) ?? []), c]);
  const shortcuts: ShortcutPlan[] = [];
  let walked = 0;
  for (const [a, list] of bySource) {
    if (env.run.exhausted()) break;
    const paths = await pathsFrom(env.db, a, new Set(list.map((c) => c.pair.b)), { maxHops: env.maxHops, ignoreTypes: ['Shortcut'], run: env.run });
    for (const c of list) {
      const path = paths.get(c.pair.b);
      if (path && path.edges.length >= SHORTCUT_MIN_HOPS) shortcuts.push({ ...c, path });
    }
    walked += list.length;
    await env.report('walk', walked, candidates.length, { shortcuts_found: shortcuts.length });
  }
  return { shortcuts, candidates: candidates.length, retrievalsRead: evidence.retrievals.length };
}

/** Writes the shortcuts as Shortcut edges in one transaction (op dream.rem). */
export async function applyRem(env: PhaseEnv, plan: RemPlan): Promise<PhaseOutcome> {
  const counts = { shortcuts_created: 0 };
  const committed = await writeTransaction(env.db, 'dream.rem', { actor: env.actor, rationale: `dream ${env.dreamId}: dream.rem` }, async (tx, log) => {
    for (const s of plan.shortcuts) {
      await env.run.checkpoint(tx);
      if (await findLiveEdgeEitherWay(tx, s.pair.a, s.pair.b, 'Shortcut')) continue;
      const edge = await insertEdge(tx, {
        id: newId(),
        src: s.pair.a,
        dst: s.pair.b,
        edge_type: 'Shortcut',
        predicate: 'amortized_shortcut',
        weight: s.confidence,
        confidence: s.confidence,
        metadata: {
          method: 'dream_shortcut',
          dream_id: env.dreamId,
          last_used_at: env.now.toISOString(),
          hops: s.path.edges.length,
          path: s.path.nodes,
          path_edges: s.path.edges,
          co_retrievals: s.pair.events.length,
          retrieval_ids: s.pair.events.map((e) => e.retrievalId).slice(-20),
          queries: [...new Set(s.pair.events.map((e) => e.query))].slice(-QUERIES_KEPT),
        },
        valid_from: null,
        valid_to: null,
      });
      log({ entity: 'edge', entityId: edge.id, before: null, after: image(edge) });
      counts.shortcuts_created++;
    }
    await env.run.checkpoint(tx);
  });
  return { txId: committed.txId || null, counts, createdNids: [], edgeEnds: edgeEnds(committed.changes) };
}
