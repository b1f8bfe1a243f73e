import { keywordTerms } from '../../embed/keyword.js';
import type { Embedder } from '../../embed/embedder.js';
import type { Logger, LogRing } from '../../log.js';
import type { Db } from '../../store/db.js';
import { edgeCountsByNid, fingerprintsByNid } from '../../store/fingerprints-repo.js';
import { entityNames, latestMemories, liveMemoryTotal, sessionMemories, storeShape } from '../../store/metacognition-repo.js';
import type { NodeRecord } from '../../store/nodes-repo.js';
import type { Clock } from '../clock.js';
import type { CurationService } from '../curation.js';
import type { SearchService } from '../search.js';
import type { TeleologyService } from '../teleology.js';
import type { ToolCatalog } from './catalog.js';
import { critiqueContext, type CheckType, type Critique } from './critique.js';
import { decideEpistemicAction, type EpistemicDecision } from './epistemic.js';
import { systemInstructions } from './instructions.js';
import { johariOf, type JohariSpace } from './johari.js';
import { readLogs, type LogLevelName } from './logs.js';
import { matchingTombstones, planForGoal, type PlanState, type PlanStep } from './plan.js';
import { searchPlan, type PlannedQuery, type PlanSpace } from './search-plan.js';

/** Memories a search plan reads its vocabulary from (the project's most recent ones). */
export const VOCABULARY_SAMPLE = 500;
/** Memories that share the goal's words a search plan builds its queries from. */
const RELATED = 40;
/** Memories epistemic_action judges: the session's (or the store's) most recent. */
const EPISTEMIC_WINDOW = 20;
const GOAL_HITS = 10;

/**
 * Meta-cognition (seed 001 §3.4): plans, critiques, instructions, logs, clarifying questions and
 * Johari classifications, each computed from what the store holds (memories, edges, tombstones,
 * fingerprints) and the live tool registry the tool layer passes in.
 */
export class MetacognitionService {
  /** Child loggers by component (get_system_logs filters on the binding). */
  private readonly log: Record<'gwt' | 'retrieval' | 'curation', Logger>;

  constructor(
    private readonly deps: {
      db: Db;
      embedder: Embedder;
      search: SearchService;
      curation: CurationService;
      teleology: TeleologyService;
      clock: Clock;
      logger: Logger;
      logRing: LogRing | null;
    },
  ) {
    this.log = { gwt: deps.logger.child({ component: 'gwt' }), retrieval: deps.logger.child({ component: 'retrieval' }), curation: deps.logger.child({ component: 'curation' }) };
  }

  async reflect(q: {
    goal: string;
    projectId: string | null;
    catalog: ToolCatalog;
  }): Promise<{ steps: PlanStep[]; state: PlanState; relevance: Array<{ tool: string; score: number; matched: string[] }> }> {
    const { db, search, curation, clock } = this.deps;
    const shape = await storeShape(db, q.projectId);
    const goalHits = shape.memories
      ? (await search.hybrid({ text: q.goal, limit: GOAL_HITS, projectId: q.projectId ?? undefined, scoreThreshold: 0.25 })).hits.map((h) => h.node)
      : [];
    const tombs = (await curation.tombstones({ limit: 200 })).items.filter((t) => q.projectId === null || t.node.project_id === q.projectId);
    const state: PlanState = { shape, goalHits, tombstones: matchingTombstones(q.goal, tombs) };
    const plan = planForGoal(q.goal, q.catalog, state, clock.now());
    this.log.gwt.info({ steps: plan.steps.map((s) => s.tool), duplicates: shape.duplicateGroups.length, tombstones: state.tombstones.length }, 'reflect_on_memory planned');
    return { ...plan, state };
  }

  async searchPlan(q: { goal: string; focus: readonly PlanSpace[]; projectId: string | null }): Promise<{ queries: PlannedQuery[]; related: number; sample: number }> {
    const { db, search } = this.deps;
    const sample = await latestMemories(db, q.projectId, VOCABULARY_SAMPLE);
    const goalTerms = new Set(keywordTerms(q.goal));
    const byWords = sample.filter((n) => keywordTerms(`${n.topic ?? ''} ${n.content}`).some((t) => goalTerms.has(t)));
    const hits = sample.length ? (await search.hybrid({ text: q.goal, limit: 10, projectId: q.projectId ?? undefined, scoreThreshold: 0.25 })).hits.map((h) => h.node) : [];
    const related = dedupe([...hits, ...byWords]).slice(0, RELATED);
    const queries = searchPlan(q.goal, { related, sample, entities: await entityNames(db, q.projectId, 200), focus: q.focus });
    this.log.retrieval.info({ related: related.length, spaces: queries.map((x) => x.target_space) }, 'search plan built');
    return { queries, related: related.length, sample: sample.length };
  }

  async critique(q: { window: number; checks: readonly CheckType[]; projectId: string | null }): Promise<Critique> {
    const out = await critiqueContext(this.deps.db, { ...q, now: this.deps.clock.now() });
    this.log.curation.info({ window: out.window.length, findings: out.findings.length }, 'context critiqued');
    return out;
  }

  async instructions(catalog: ToolCatalog): Promise<{ text: string; named: string[]; memories: number }> {
    const [latest] = await latestMemories(this.deps.db, null, 1);
    return { ...systemInstructions(catalog, latest?.id ?? '00000000000000000000000000'), memories: await liveMemoryTotal(this.deps.db) };
  }

  logs(q: { level: LogLevelName; limit: number; component: string }) {
    return { ...readLogs(this.deps.logRing, q), ring: this.deps.logRing !== null };
  }

  async epistemic(q: { sessionId: string; force: boolean }): Promise<EpistemicDecision> {
    const { db } = this.deps;
    const session = await sessionMemories(db, q.sessionId, EPISTEMIC_WINDOW);
    const candidates = session.length ? session : await latestMemories(db, null, EPISTEMIC_WINDOW);
    const fps = new Map(
      (
        await fingerprintsByNid(
          db,
          candidates.map((n) => n.nid),
        )
      ).map((f) => [f.node_nid, f]),
    );
    const edges = await edgeCountsByNid(
      db,
      candidates.map((n) => n.nid),
    );
    // EC-MCP-003 counts the whole store: a session new to a project of a full store is not "empty".
    const memories = await liveMemoryTotal(db);
    const decision = decideEpistemicAction({
      force: q.force,
      memories,
      candidates,
      fingerprints: fps,
      edges,
      topics: topicsOf(candidates),
      source: session.length ? 'session' : 'latest',
    });
    this.log.gwt.info(
      { triggered: decision.triggered, coherence: decision.coherence_before, focal: decision.focal.map((f) => f.node.id) },
      decision.triggered ? 'epistemic action: question generated' : 'epistemic action: coherence sufficient',
    );
    return decision;
  }

  async johari(nodeId: string): Promise<{ node: NodeRecord; stale: boolean; spaces: JohariSpace[]; insights: string[] }> {
    const { node, fingerprint, stale } = await this.deps.teleology.fingerprint(nodeId);
    const embedded = new Set<string>(this.deps.embedder.encoders().map((e) => e.space));
    const j = johariOf(fingerprint, embedded);
    this.log.gwt.debug({ node: node.id, quadrants: j.spaces.map((s) => s.quadrant) }, 'johari classified');
    return { node, stale, ...j };
  }
}

function dedupe(nodes: readonly NodeRecord[]): NodeRecord[] {
  const seen = new Set<number>();
  return nodes.filter((n) => !seen.has(n.nid) && (seen.add(n.nid), true));
}

/** What the memories are about: their most frequent topics, else their most frequent content words. */
function topicsOf(nodes: readonly NodeRecord[]): string[] {
  const counts = new Map<string, number>();
  for (const n of nodes) if (n.topic) counts.set(n.topic, (counts.get(n.topic) ?? 0) + 1);
  if (counts.size === 0) for (const n of nodes) for (const w of new Set(n.content.toLowerCase().match(/\p{L}{5,}/gu) ?? [])) counts.set(w, (counts.get(w) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, 3)
    .map(([t]) => t);
}
