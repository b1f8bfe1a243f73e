import type { Db } from '../../store/db.js';
import { latestTxId } from '../../store/tx-log.js';
import { e1Vectors, egoSnapshots, firstEgoSnapshot, goalNodes, insertEgoSnapshot, memorySignals, type EgoSnapshot } from '../../store/workspace-repo.js';
import { navNode } from '../navigation/views.js';
import { CANDIDATES } from './workspace.js';
import { cosine, round4, weightedCentroid, words } from './math.js';

export type IdentityStatus = 'healthy' | 'warning' | 'degraded' | 'critical';

/** The origin's bands for identity continuity (contextgraph.md §4). */
export function identityStatus(continuity: number): IdentityStatus {
  if (continuity > 0.9) return 'healthy';
  if (continuity >= 0.7) return 'warning';
  if (continuity >= 0.5) return 'degraded';
  return 'critical';
}

/**
 * The store's self-model (get_ego_state): its goals (north star and goal/pinned/manifest
 * memories), what it is mostly about (importance-weighted topics, tags and words), and its
 * identity continuity: the cosine of its purpose vector (importance-weighted mean E1 vector of
 * its memories) now against the snapshot before the last change and against the first one.
 * A snapshot is taken whenever the ego is read after a write.
 */
export class EgoService {
  constructor(private readonly deps: { db: Db; e1ModelId: () => string | null }) {}

  async ego(projectId: string) {
    const { db } = this.deps;
    const rows = await memorySignals(db, projectId, CANDIDATES);
    const modelId = this.deps.e1ModelId();
    const vectors = modelId
      ? await e1Vectors(
          db,
          rows.map((r) => r.nid),
          modelId,
        )
      : new Map<number, Float32Array>();
    const withVector = rows.filter((r) => vectors.has(r.nid));
    const purpose = weightedCentroid(
      withVector.map((r) => vectors.get(r.nid)!),
      withVector.map((r) => Math.max(r.importance, 1e-3)),
    );

    // Snapshots: the present is recorded once per state of the log; continuity compares with the
    // latest one of an earlier state.
    const txId = await latestTxId(db);
    const recent = await egoSnapshots(db, projectId, 2);
    const comparable = (s: EgoSnapshot) => s.model_id === modelId && s.purpose.length === purpose?.length;
    const unchanged = recent[0]?.last_tx_id === txId;
    const previous: EgoSnapshot | null = (unchanged ? recent[1] : recent[0]) ?? null;
    if (!unchanged && purpose && modelId) await insertEgoSnapshot(db, { projectId, lastTxId: txId, memories: withVector.length, modelId, purpose });
    const first = await firstEgoSnapshot(db, projectId);
    const continuity = (s: EgoSnapshot | null) => (s && purpose && comparable(s) ? round4(cosine(purpose, s.purpose)) : null);
    const toPrevious = continuity(previous);
    const toFirst = first && first.last_tx_id !== txId ? continuity(first) : null;

    const goals = (await goalNodes(db, projectId, 10)).map((g) => ({
      ...navNode(g),
      importance: g.importance,
      source: g.kind === 'goal' ? ('north_star' as const) : ('tagged' as const),
    }));

    const topicWeight = new Map<string, { weight: number; memories: number }>();
    const termWeight = new Map<string, number>();
    for (const r of rows) {
      for (const key of new Set([...(r.topic ? [r.topic] : []), ...r.tags])) {
        const t = topicWeight.get(key) ?? { weight: 0, memories: 0 };
        topicWeight.set(key, { weight: t.weight + r.importance, memories: t.memories + 1 });
      }
      for (const w of new Set(words(`${r.topic ?? ''} ${r.content}`))) termWeight.set(w, (termWeight.get(w) ?? 0) + r.importance);
    }
    const topics = [...topicWeight.entries()]
      .sort((a, b) => b[1].weight - a[1].weight || a[0].localeCompare(b[0]))
      .slice(0, 10)
      .map(([name, t]) => ({ name, weight: round4(t.weight), memories: t.memories }));
    const terms = [...termWeight.entries()]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, 10)
      .map(([term, weight]) => ({ term, weight: round4(weight) }));

    return {
      project_id: projectId,
      memories: rows.length,
      goals,
      dominant_topics: topics,
      dominant_terms: terms,
      identity: {
        continuity: toPrevious,
        continuity_since_first: toFirst,
        status: toPrevious === null ? null : identityStatus(toPrevious),
        previous_snapshot_at: previous?.taken_at.toISOString() ?? null,
        first_snapshot_at: first?.taken_at.toISOString() ?? null,
        snapshots_compared_memories: previous?.memories ?? null,
      },
    };
  }
}
