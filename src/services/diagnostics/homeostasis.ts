import { AppError } from '../../errors.js';
import type { Db } from '../../store/db.js';
import { importanceAndDegree, liveDegree, quarantinedNodes, sampleMemories, setNodeMetadata, type ImportanceRow } from '../../store/diagnostics-repo.js';
import { nodeById, type NodeRecord } from '../../store/nodes-repo.js';
import type { Clock } from '../clock.js';
import { curate, lockLiveNode, type Curated } from '../curation.js';
import type { SearchService } from '../search.js';
import { image } from '../writes.js';
import { importanceDistribution, quantile, type ImportanceDistribution } from './distribution.js';

/**
 * The homeostatic view of a project (seed 001 §3.5 REQ-MCP-P2-001): how importance is spread and
 * how far its mean is from the setpoint, which memories show "semantic cancer" (a memory that
 * dominates the results of queries about other memories while its importance and its degree
 * grow), and which memories are quarantined (left out of search until released).
 *
 * Dominance is measured, not guessed: up to PROBES memories of the project (a stable sample) are
 * each searched for with their own text, as an agent would search; a memory that turns up in the
 * visible results (top PROBE_TOP_K, score ≥ the search default 0.25) of at least DOMINANCE_SHARE
 * of the other memories' queries, and DOMINANCE_LIFT times as many as an average memory, dominates them.
 */

export const PROBES = 40;
export const PROBE_TOP_K = 5;
export const PROBE_SCORE_THRESHOLD = 0.25;
export const DOMINANCE_SHARE = 0.3;
/** ... and at least this many times the share an average memory of the project gets (small projects show unrelated memories more often). */
export const DOMINANCE_LIFT = 2;
/** Fewer probes than this measure nothing. */
export const MIN_PROBES = 8;
/** A hub: degree at or above the project's 90th percentile and at least MIN_HUB_DEGREE. */
export const HUB_QUANTILE = 0.9;
export const MIN_HUB_DEGREE = 3;
const MAX_NODES = 50_000;

export interface Dominance {
  /** Probes (other memories' queries) whose visible results held it. */
  hits: number;
  probes: number;
  share: number;
}

export interface CancerCandidate {
  node: NodeRecord;
  importance: number;
  stored_importance: number | null;
  importance_growth: number;
  degree: number;
  dominance: Dominance;
  /** Which criteria hold: dominating, hub (degree), growing (importance raised since stored). */
  criteria: { dominating: boolean; hub: boolean; growing: boolean };
  cancer: boolean;
}

export interface HomeostaticReport {
  project_id: string;
  memories: number;
  distribution: ImportanceDistribution;
  degree: { p50: number; p90: number; max: number; hub_threshold: number };
  probes: number;
  /** The share of probes an average memory of the project turns up in. */
  baseline_share: number;
  /** Memories dominating the probes, worst first; `cancer` when every criterion holds. */
  dominating: CancerCandidate[];
  quarantine: NodeRecord[];
}

const round = (x: number) => Math.round(x * 1000) / 1000;

export class HomeostasisService {
  constructor(private readonly deps: { db: Db; search: SearchService; clock: Clock }) {}

  /** Each probe memory's text searched in its project; per memory id, the probes whose visible results held it. */
  private async probe(projectId: string): Promise<{ probes: string[]; hits: Map<string, number> }> {
    const sample = await sampleMemories(this.deps.db, projectId, PROBES);
    const hits = new Map<string, number>();
    for (const m of sample) {
      const text = (m.topic ? `${m.topic} ${m.content}` : m.content).slice(0, 300);
      const r = await this.deps.search.hybrid({ text, limit: PROBE_TOP_K, projectId, excludeKinds: ['entity'], scoreThreshold: PROBE_SCORE_THRESHOLD });
      for (const h of r.hits) if (h.node.id !== m.id) hits.set(h.node.id, (hits.get(h.node.id) ?? 0) + 1);
    }
    return { probes: sample.map((m) => m.id), hits };
  }

  private dominanceOf(id: string, probes: readonly string[], hits: ReadonlyMap<string, number>): Dominance {
    const n = probes.filter((p) => p !== id).length;
    const h = hits.get(id) ?? 0;
    return { hits: h, probes: n, share: n > 0 ? round(h / n) : 0 };
  }

  /** Hits over probe slots across every memory of the project: the share an average memory gets. */
  private baselineShare(rows: readonly ImportanceRow[], probes: readonly string[], hits: ReadonlyMap<string, number>): number {
    const sampled = new Set(probes);
    const slots = rows.reduce((s, r) => s + probes.length - (sampled.has(r.id) ? 1 : 0), 0);
    const total = rows.reduce((s, r) => s + (hits.get(r.id) ?? 0), 0);
    return slots > 0 ? total / slots : 0;
  }

  private dominates(d: Dominance, baseline: number): boolean {
    return d.probes >= MIN_PROBES && d.share >= DOMINANCE_SHARE && d.share >= DOMINANCE_LIFT * baseline;
  }

  private hubThreshold(rows: readonly ImportanceRow[]): number {
    return Math.max(
      MIN_HUB_DEGREE,
      quantile(
        rows.map((r) => r.degree).sort((a, b) => a - b),
        HUB_QUANTILE,
      ),
    );
  }

  async status(projectId: string): Promise<HomeostaticReport> {
    const rows = await importanceAndDegree(this.deps.db, projectId, MAX_NODES);
    const degrees = rows.map((r) => r.degree).sort((a, b) => a - b);
    const hub = this.hubThreshold(rows);
    const { probes, hits } = await this.probe(projectId);
    const byId = new Map(rows.map((r) => [r.id, r]));
    const baseline = this.baselineShare(rows, probes, hits);
    const dominating: CancerCandidate[] = [];
    for (const id of hits.keys()) {
      const row = byId.get(id);
      const dominance = this.dominanceOf(id, probes, hits);
      if (!row || !this.dominates(dominance, baseline)) continue;
      const node = await nodeById(this.deps.db, id);
      if (!node) continue;
      const growth = row.stored_importance === null ? 0 : round(row.importance - row.stored_importance);
      const criteria = { dominating: true, hub: row.degree >= hub, growing: growth > 0 };
      dominating.push({
        node,
        importance: round(row.importance),
        stored_importance: row.stored_importance,
        importance_growth: growth,
        degree: row.degree,
        dominance,
        criteria,
        cancer: criteria.hub && criteria.growing,
      });
    }
    dominating.sort((a, b) => Number(b.cancer) - Number(a.cancer) || b.dominance.share - a.dominance.share);
    return {
      project_id: projectId,
      memories: rows.length,
      distribution: importanceDistribution(rows.map((r) => r.importance)),
      degree: { p50: quantile(degrees, 0.5), p90: quantile(degrees, 0.9), max: degrees.at(-1) ?? 0, hub_threshold: hub },
      probes: probes.length,
      baseline_share: round(baseline),
      dominating,
      quarantine: await quarantinedNodes(this.deps.db, projectId, 100),
    };
  }

  /**
   * SEMANTIC_CANCER_DETECTED when raising this memory's importance would make it cancer: it is
   * a hub of its project and already dominates the results of other memories' queries. Lowering
   * importance, or raising that of an ordinary memory, passes (and costs one SQL query).
   */
  async checkBoost(id: string, delta: number): Promise<void> {
    if (!(delta > 0)) return;
    const node = await nodeById(this.deps.db, id);
    if (!node || node.deleted_at !== null) return; // the boost itself answers NODE_NOT_FOUND
    // The hub threshold is never below MIN_HUB_DEGREE, so a node with fewer edges is no hub
    // whatever the project holds: answered from the edge indexes, without reading the project's
    // importance and degree row by row (1.3 s per boost at 10k memories, loaded, before).
    if ((await liveDegree(this.deps.db, id)) < MIN_HUB_DEGREE) return;
    const rows = await importanceAndDegree(this.deps.db, node.project_id, MAX_NODES);
    const row = rows.find((r) => r.id === id);
    const hub = this.hubThreshold(rows);
    if (!row || row.degree < hub) return;
    const { probes, hits } = await this.probe(node.project_id);
    const dominance = this.dominanceOf(id, probes, hits);
    if (!this.dominates(dominance, this.baselineShare(rows, probes, hits))) return;
    throw new AppError(
      'SEMANTIC_CANCER_DETECTED',
      `Raising the importance of ${id} would feed semantic cancer: it already appears in the results of ${dominance.hits} of ${dominance.probes} other memories' queries (${Math.round(dominance.share * 100)}%) and has ${row.degree} edges (hub threshold ${hub}). Quarantine it or lower its importance instead.`,
      { node_id: id, importance: round(row.importance), requested_delta: delta, degree: row.degree, hub_threshold: hub, dominance },
    );
  }

  /** Quarantines (left out of search, listed by homeostatic_status) or releases a memory; one logged, reversible transaction. */
  async setQuarantine(id: string, quarantined: boolean, meta: { actor: string; rationale: string }): Promise<Curated<NodeRecord>> {
    return curate(this.deps.db, quarantined ? 'quarantine' : 'release', { actor: meta.actor, rationale: meta.rationale }, async (tx, log) => {
      const old = await lockLiveNode(tx, id);
      const has = old.metadata.quarantine !== undefined;
      if (has === quarantined) throw new AppError('CONFLICT', `Memory ${id} is ${quarantined ? 'already' : 'not'} quarantined.`, { id, quarantined: has });
      const metadata = { ...old.metadata };
      if (quarantined) metadata.quarantine = { at: this.deps.clock.now().toISOString(), by: meta.actor, rationale: meta.rationale };
      else delete metadata.quarantine;
      const row = await setNodeMetadata(tx, id, metadata);
      log({ entity: 'node', entityId: id, before: image(old), after: image(row) });
      return { nodeIds: [id], result: row };
    });
  }
}
