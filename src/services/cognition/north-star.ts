import type { Db } from '../../store/db.js';
import { activeNorthStar, e1Vectors, memorySignals, type MemorySignals, type NorthStarRow } from '../../store/workspace-repo.js';
import { CANDIDATES } from './workspace.js';
import { cosine, distinctiveTerms, ewmaSeries, kMeans, round4, slope, weightedCentroid } from './math.js';

/** Memories the goal clustering looks at: the most important ones. */
export const GOAL_POOL = 500;
/** A north star needs at least this many embedded memories to cluster. */
export const MIN_MEMORIES = 3;
/** EWMA span of the drift measure: α = 2 / (span + 1). */
export const DRIFT_SPAN = 20;
/** Tags that mark a memory as the project's stated purpose (the manifest). */
export const MANIFEST_TAGS = ['manifest', 'pinned'];

export interface Embedded extends MemorySignals {
  vector: Float32Array;
}

/** A project's live memories that have an E1 vector, newest first. */
export async function embeddedMemories(db: Db, projectId: string, modelId: string): Promise<Embedded[]> {
  const rows = await memorySignals(db, projectId, CANDIDATES);
  const vectors = await e1Vectors(
    db,
    rows.map((r) => r.nid),
    modelId,
  );
  return rows.flatMap((r) => (vectors.has(r.nid) ? [{ ...r, vector: vectors.get(r.nid)! }] : []));
}

const text = (m: MemorySignals) => `${m.topic ?? ''} ${m.content}`;

/** k for k-means over n memories: ⌈√(n/2)⌉ (the origin's rule), within [2, 10]. */
export function defaultK(n: number): number {
  return Math.max(2, Math.min(10, Math.ceil(Math.sqrt(n / 2))));
}

export interface GoalCluster {
  members: Embedded[];
  centroid: Float32Array;
  /** Σ importance of its members: the dominant cluster is the heaviest. */
  mass: number;
  /** Mean cosine of members to the centroid. */
  coherence: number;
  terms: string[];
}

/** The most important memories clustered on E1 (k-means, most important first), heaviest first. */
export function goalClusters(memories: readonly Embedded[], k: number | null): GoalCluster[] {
  const pool = [...memories].sort((a, b) => b.importance - a.importance || b.access_count - a.access_count || b.nid - a.nid).slice(0, GOAL_POOL);
  if (pool.length === 0) return [];
  const { assignment } = kMeans(
    pool.map((m) => m.vector),
    k ?? defaultK(pool.length),
  );
  const groups = new Map<number, Embedded[]>();
  pool.forEach((m, i) => groups.set(assignment[i]!, [...(groups.get(assignment[i]!) ?? []), m]));
  const allTexts = pool.map(text);
  return [...groups.values()]
    .map((members) => {
      const centroid = weightedCentroid(
        members.map((m) => m.vector),
        members.map((m) => Math.max(m.importance, 1e-3)),
      )!;
      return {
        members,
        centroid,
        mass: members.reduce((s, m) => s + m.importance, 0),
        coherence: members.reduce((s, m) => s + cosine(m.vector, centroid), 0) / members.length,
        terms: distinctiveTerms(members.map(text), allTexts, 6),
      };
    })
    .sort((a, b) => b.mass - a.mass || b.members.length - a.members.length);
}

export interface GoalVector {
  source: 'manifest' | 'dominant_cluster';
  vector: Float32Array;
  members: Embedded[];
  terms: string[];
  clusters: number;
}

/** The goal vector: the manifest's (memories tagged manifest/pinned) when there is one, else the dominant cluster's. */
export function goalVector(memories: readonly Embedded[]): GoalVector | null {
  const manifest = memories.filter((m) => m.tags.some((t) => MANIFEST_TAGS.includes(t)));
  if (manifest.length > 0) {
    const vector = weightedCentroid(
      manifest.map((m) => m.vector),
      manifest.map((m) => Math.max(m.importance, 1e-3)),
    );
    if (vector) return { source: 'manifest', vector, members: manifest, terms: distinctiveTerms(manifest.map(text), memories.map(text), 6), clusters: 0 };
  }
  if (memories.length < MIN_MEMORIES) return null;
  const clusters = goalClusters(memories, null);
  const top = clusters[0]!;
  return { source: 'dominant_cluster', vector: top.centroid, members: top.members, terms: top.terms, clusters: clusters.length };
}

export interface Drift {
  north_star: { id: string; label: string; source: string; created_at: string; baseline: number };
  memories: number;
  /** EWMA of alignment over memories in creation order, at the newest memory. */
  ewma: number;
  /** baseline − ewma: how far the newest memories have moved away from the goal. */
  drift: number;
  level: 'none' | 'low' | 'medium' | 'high';
  /** Slope of the EWMA over the last DRIFT_SPAN memories (per memory); negative = moving away. */
  trend: number;
  mean_alignment: number;
  /** Σ importance·alignment / Σ importance: where the store's attention points (drift correction moves it). */
  importance_weighted_alignment: number;
  recent: Array<{ id: string; alignment: number; ewma: number }>;
}

/** Levels of drift below the baseline (cosine units). */
export function driftLevel(drift: number): Drift['level'] {
  if (drift < 0.05) return 'none';
  if (drift < 0.1) return 'low';
  if (drift < 0.2) return 'medium';
  return 'high';
}

export const DRIFT_LEVELS: ReadonlyArray<Drift['level']> = ['none', 'low', 'medium', 'high'];

/** Alignment of every embedded memory to the north star, oldest first. */
export async function alignments(db: Db, star: NorthStarRow): Promise<Array<Embedded & { alignment: number }>> {
  const memories = await embeddedMemories(db, star.project_id, star.model_id);
  return memories.map((m) => ({ ...m, alignment: cosine(m.vector, star.vector) })).sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a.nid - b.nid);
}

export async function measureDrift(db: Db, projectId: string): Promise<Drift | null> {
  const star = await activeNorthStar(db, projectId);
  if (!star) return null;
  const rows = await alignments(db, star);
  const series = ewmaSeries(
    rows.map((r) => r.alignment),
    2 / (DRIFT_SPAN + 1),
  );
  const ewma = series[series.length - 1] ?? star.baseline;
  const weight = rows.reduce((s, r) => s + r.importance, 0);
  const drift = star.baseline - ewma;
  return {
    north_star: { id: star.node_id, label: star.label, source: star.source, created_at: star.created_at.toISOString(), baseline: round4(star.baseline) },
    memories: rows.length,
    ewma: round4(ewma),
    drift: round4(drift),
    level: driftLevel(drift),
    trend: round4(slope(series.slice(-DRIFT_SPAN))),
    mean_alignment: round4(rows.length ? rows.reduce((s, r) => s + r.alignment, 0) / rows.length : 0),
    importance_weighted_alignment: round4(weight > 0 ? rows.reduce((s, r) => s + r.importance * r.alignment, 0) / weight : 0),
    recent: rows
      .slice(-10)
      .map((r, i, a) => ({ id: r.id, alignment: round4(r.alignment), ewma: round4(series[series.length - a.length + i]!) }))
      .reverse(),
  };
}
