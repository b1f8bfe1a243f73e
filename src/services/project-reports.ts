import type { Db } from '../store/db.js';
import type { NodeRecord } from '../store/nodes-repo.js';
import { liveIdsAmong, liveNodesOfKinds, liveNodesWithTags, liveEdgesWithPredicates } from '../store/projects-repo.js';
import { KIND_SPECS, PREDICATES, PROJECT_KINDS, type ProjectKind } from './project-kinds.js';
import type { EntityView, ProjectService } from './projects.js';
import type { SearchService } from './search.js';

/** The most a structure check or export reads per kind: a project model, not a memory store. */
export const MODEL_READ_LIMIT = 10_000;

export interface ProjectHit {
  kind: ProjectKind;
  id: string;
  title: string;
  score: number;
  /** The dense (E1) cosine when the hit has one; semantic search ranks by it. */
  similarity: number | null;
  /** True when the hit shares a term with the query (BM25). */
  lexical: boolean;
  entity: EntityView;
}

export interface StructureIssue {
  type: 'orphan' | 'dangling_reference' | 'cycle' | 'empty_structure';
  entity: ProjectKind | 'edge';
  id: string;
  message: string;
}

/** Search, tag lookup, structure checks and export over seed 002's model (reads only). */
export class ProjectReports {
  constructor(private readonly deps: { db: Db; search: SearchService; projects: ProjectService }) {}

  /**
   * Hybrid search restricted to project kinds. `mode: 'semantic'` ranks by the dense cosine
   * and keeps hits at or above `minSimilarity`; `hybrid` keeps the fused order.
   */
  async search(q: { text: string; kinds: readonly ProjectKind[]; limit: number; mode: 'semantic' | 'hybrid'; minSimilarity?: number }): Promise<ProjectHit[]> {
    const { hits } = await this.deps.search.hybrid({ text: q.text, kinds: q.kinds.length ? q.kinds : PROJECT_KINDS, limit: q.mode === 'semantic' ? q.limit * 4 : q.limit });
    const rows = hits.map((h) => ({
      node: h.node,
      score: Math.round(h.score * 1000) / 1000,
      similarity: h.signals.E1 ? Math.round(h.signals.E1.score * 1000) / 1000 : null,
      lexical: Boolean(h.signals.lexical),
    }));
    const kept =
      q.mode === 'semantic'
        ? rows
            .filter((r) => r.similarity !== null && r.similarity >= (q.minSimilarity ?? 0))
            .sort((a, b) => b.similarity! - a.similarity! || (a.node.id < b.node.id ? -1 : 1))
            .slice(0, q.limit)
        : rows;
    return Promise.all(
      kept.map(async (r) => ({
        ...r,
        kind: r.node.kind as ProjectKind,
        id: r.node.id,
        title: r.node.topic ?? r.node.id,
        entity: await this.deps.projects.view(this.deps.db, r.node),
      })),
    );
  }

  async byTags(q: { tags: readonly string[]; kinds: readonly ProjectKind[]; matchAll: boolean; limit: number }): Promise<Array<{ kind: ProjectKind; entity: EntityView }>> {
    const nodes = await liveNodesWithTags(this.deps.db, q.kinds.length ? q.kinds : PROJECT_KINDS, q.tags, q.matchAll, q.limit);
    return Promise.all(nodes.map(async (n) => ({ kind: n.kind as ProjectKind, entity: await this.deps.projects.view(this.deps.db, n) })));
  }

  async counts(): Promise<Record<ProjectKind, number>> {
    const nodes = await liveNodesOfKinds(this.deps.db, PROJECT_KINDS, MODEL_READ_LIMIT * PROJECT_KINDS.length);
    const out = Object.fromEntries(PROJECT_KINDS.map((k) => [k, 0])) as Record<ProjectKind, number>;
    for (const n of nodes) out[n.kind as ProjectKind]++;
    return out;
  }

  /**
   * Orphans (a path, tide or harvested pattern whose parent is gone), dangling references (a
   * link of the model whose other end is gone), cycles among the model's links, and entities
   * whose required structure is empty (a phase without success criteria, a path without works,
   * a completed tide without learnings).
   */
  async validate(): Promise<{ valid: boolean; checked: Record<ProjectKind, number>; issues: StructureIssue[] }> {
    const nodes = await liveNodesOfKinds(this.deps.db, PROJECT_KINDS, MODEL_READ_LIMIT * PROJECT_KINDS.length);
    const live = new Set(nodes.map((n) => n.id));
    const issues: StructureIssue[] = [];
    const checked = Object.fromEntries(PROJECT_KINDS.map((k) => [k, 0])) as Record<ProjectKind, number>;
    const edges = await liveEdgesWithPredicates(this.deps.db, Object.values(PREDICATES), MODEL_READ_LIMIT * 4);
    const worksOf = new Map<string, number>();
    for (const e of edges) if (e.predicate === PREDICATES.includesWork) worksOf.set(e.src, (worksOf.get(e.src) ?? 0) + 1);
    for (const n of nodes) {
      const kind = n.kind as ProjectKind;
      checked[kind]++;
      const parent = KIND_SPECS[kind].parent;
      const parentId = parent ? n.metadata[parent.key] : undefined;
      if (parent && typeof parentId === 'string' && !live.has(parentId)) {
        issues.push({ type: 'orphan', entity: kind, id: n.id, message: `${KIND_SPECS[kind].label} '${n.id}' points to ${parent.kind} '${parentId}', which does not exist.` });
      }
      const empty = emptyStructure(kind, n, worksOf);
      if (empty) issues.push({ type: 'empty_structure', entity: kind, id: n.id, message: `${KIND_SPECS[kind].label} '${n.id}' ${empty}.` });
    }
    const ends = await liveIdsAmong(this.deps.db, [...new Set(edges.flatMap((e) => [e.src, e.dst]))]);
    for (const e of edges) {
      const gone = [e.src, e.dst].filter((id) => !ends.has(id));
      if (gone.length)
        issues.push({
          type: 'dangling_reference',
          entity: 'edge',
          id: e.id,
          message: `Link ${e.src} -${e.predicate}-> ${e.dst} points to ${gone.join(' and ')}, which no longer exist.`,
        });
    }
    for (const cycle of findCycles(edges.filter((e) => ends.has(e.src) && ends.has(e.dst)))) {
      issues.push({ type: 'cycle', entity: 'edge', id: cycle[0]!, message: `The links form a cycle: ${cycle.join(' -> ')}.` });
    }
    return { valid: issues.length === 0, checked, issues };
  }

  /** The whole model, or one phase with its paths, their works and tides, and the tides' patterns. */
  async export(phaseId?: string): Promise<{ phases: EntityView[]; works: EntityView[]; paths: EntityView[]; tides: EntityView[]; patterns: EntityView[] }> {
    const db = this.deps.db;
    const nodes = await liveNodesOfKinds(db, PROJECT_KINDS, MODEL_READ_LIMIT * PROJECT_KINDS.length);
    let keep = nodes;
    if (phaseId !== undefined) {
      const phase = await this.deps.projects.get('phase', phaseId);
      const paths = nodes.filter((n) => n.kind === 'path' && n.metadata.phase_id === phase.id);
      const pathIds = new Set(paths.map((p) => p.id));
      const tides = nodes.filter((n) => n.kind === 'tide' && pathIds.has(String(n.metadata.path_id)));
      const tideIds = new Set(tides.map((t) => t.id));
      const workIds = new Set((await Promise.all(paths.map((p) => this.deps.projects.pathWorks(db, p.id)))).flat().map((w) => w.work_id));
      keep = nodes.filter(
        (n) => n.id === phase.id || pathIds.has(n.id) || tideIds.has(n.id) || workIds.has(n.id) || (n.kind === 'pattern' && tideIds.has(String(n.metadata.tide_id))),
      );
    }
    const of = (kind: ProjectKind) => Promise.all(keep.filter((n) => n.kind === kind).map((n) => this.deps.projects.view(db, n)));
    return { phases: await of('phase'), works: await of('work'), paths: await of('path'), tides: await of('tide'), patterns: await of('pattern') };
  }
}

function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'object' && Object.keys(v).length === 0) || (typeof v === 'string' && v.trim() === '');
}

function emptyStructure(kind: ProjectKind, n: NodeRecord, worksOf: Map<string, number>): string | null {
  if (kind === 'phase' && isEmpty(n.metadata.success_criteria)) return 'has no success_criteria';
  if (kind === 'path' && !worksOf.get(n.id)) return 'has no works (path_add_works)';
  if (kind === 'tide' && n.metadata.status === 'completed' && isEmpty(n.metadata.learnings)) return 'is completed without learnings';
  return null;
}

/** Each cycle once, as the node ids along it (first id repeated at the end). */
function findCycles(edges: ReadonlyArray<{ src: string; dst: string }>): string[][] {
  const out = new Map<string, string[]>();
  for (const e of edges) out.set(e.src, [...(out.get(e.src) ?? []), e.dst]);
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[][] = [];
  const stack: string[] = [];
  const visit = (id: string) => {
    state.set(id, 'open');
    stack.push(id);
    for (const next of out.get(id) ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(id, 'done');
  };
  for (const id of out.keys()) if (!state.has(id)) visit(id);
  return cycles;
}
