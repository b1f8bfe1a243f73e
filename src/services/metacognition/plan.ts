import { keywordTerms } from '../../embed/keyword.js';
import type { StoreShape } from '../../store/metacognition-repo.js';
import type { TombstoneRow } from '../../store/curation-repo.js';
import type { NodeRecord } from '../../store/nodes-repo.js';
import { findTool, rankTools, type ToolCatalog } from './catalog.js';
import { excerpt } from './text.js';

/** What reflect_on_memory looked at in the store before planning. */
export interface PlanState {
  shape: StoreShape;
  /** Live memories the goal's own words find (hybrid search, default threshold). */
  goalHits: NodeRecord[];
  /** Soft-deleted memories inside the recovery window that share a content word with the goal. */
  tombstones: Array<TombstoneRow & { shared: string[] }>;
}

export interface PlanStep {
  order: number;
  tool: string;
  toolset: string;
  /** False: the session must switch the toolset on first (`toolsets {"enable": [...]}`). */
  enabled: boolean;
  phase: 'orient' | 'repair' | 'structure' | 'act';
  why: string;
  args: Record<string, unknown>;
}

/** Tools the plan never proposes: the switch itself and the planner. */
const NOT_A_STEP = new Set(['toolsets', 'reflect_on_memory']);
/** Goal-specific tools added after the state-driven steps. */
const RELEVANT_STEPS = 3;
/** Duplicate groups and tombstones proposed at most. */
const REPAIRS = 3;

/** Tombstones sharing a content word with the goal, most shared words first. */
export function matchingTombstones(goal: string, rows: readonly TombstoneRow[]): PlanState['tombstones'] {
  const words = new Set(keywordTerms(goal));
  return rows
    .map((r) => ({ ...r, shared: [...new Set(keywordTerms(`${r.node.topic ?? ''} ${r.node.content}`))].filter((w) => words.has(w)) }))
    .filter((r) => r.shared.length > 0 && r.reversal_hash)
    .sort((a, b) => b.shared.length - a.shared.length);
}

/**
 * An ordered tool sequence for a goal. The state decides the repairs (restore what the goal needs
 * from the tombstones, merge duplicate groups, critique stale hits, build edges where there are
 * none); the goal's words against the live registry's descriptions decide the rest. Only tools
 * present in the catalog are proposed; a disabled one says which toolset to switch on.
 */
export function planForGoal(
  goal: string,
  catalog: ToolCatalog,
  state: PlanState,
  now: Date,
): { steps: PlanStep[]; relevance: Array<{ tool: string; score: number; matched: string[] }> } {
  const steps: Omit<PlanStep, 'order'>[] = [];
  const add = (tool: string, phase: PlanStep['phase'], why: string, args: Record<string, unknown>) => {
    const t = findTool(catalog, tool);
    if (!t || steps.some((s) => s.tool === tool && JSON.stringify(s.args) === JSON.stringify(args))) return;
    steps.push({ tool, toolset: t.toolset, enabled: t.enabled, phase, why, args });
  };
  const { shape, goalHits } = state;

  if (shape.memories === 0) add('store', 'orient', 'The store holds no memories yet: there is nothing to search or curate; store what the goal is about first.', { content: goal });
  else
    add(
      'search',
      'orient',
      goalHits.length
        ? `${goalHits.length} memor${goalHits.length === 1 ? 'y matches' : 'ies match'} the goal's words (best: "${excerpt(goalHits[0]!.content, 60)}"); read them first.`
        : `No memory matches the goal's words above the default threshold among ${shape.memories}; search with the goal to see the nearest ones.`,
      { query_text: goal },
    );

  for (const t of state.tombstones.slice(0, REPAIRS))
    add(
      'restore_from_hash',
      'repair',
      `Deleted ${t.node.deleted_at?.toISOString() ?? ''}, still restorable, and shares "${t.shared.join('", "')}" with the goal: "${excerpt(t.node.content, 60)}".`,
      {
        reversal_hash: t.reversal_hash,
      },
    );
  const hitIds = new Set(goalHits.map((h) => h.id));
  const groups = [...shape.duplicateGroups].sort((a, b) => b.filter((id) => hitIds.has(id)).length - a.filter((id) => hitIds.has(id)).length);
  for (const group of groups.slice(0, REPAIRS))
    add(
      'merge_concepts',
      'repair',
      `${group.length} live memories hold the same content (one content hash)${group.some((id) => hitIds.has(id)) ? ', and the goal finds them' : ''}: merge them so search stops splitting their weight.`,
      {
        source_node_ids: group.slice(0, 10),
        target_name: 'merged duplicates',
        rationale: 'identical content stored more than once',
      },
    );
  const stale = goalHits.filter((h) => typeof h.metadata.superseded_by === 'string' || (h.valid_to !== null && h.valid_to.getTime() <= now.getTime()));
  if (stale.length)
    add('critique_context', 'repair', `${stale.length} of the goal's matches are superseded or expired: check them for conflicts before relying on them.`, {
      context_window: Math.min(50, Math.max(10, goalHits.length)),
      check_types: ['conflicts', 'outdated'],
    });
  if (shape.liveEdges === 0 && shape.memories >= 2)
    add('build_edges', 'structure', `${shape.memories} memories and no edges: neighbourhoods and causal paths have nothing to walk until edges are built.`, {});

  const ranked = rankTools(catalog, goal).filter((r) => !NOT_A_STEP.has(r.tool.name));
  let added = 0;
  for (const r of ranked) {
    if (added >= RELEVANT_STEPS) break;
    if (steps.some((s) => s.tool === r.tool.name)) continue;
    add(r.tool.name, 'act', `Its description matches the goal on "${r.matched.join('", "')}" (score ${r.score}).`, {});
    added++;
  }
  return {
    steps: steps.map((s, i) => ({ order: i + 1, ...s })),
    relevance: ranked.slice(0, 8).map((r) => ({ tool: r.tool.name, score: r.score, matched: r.matched })),
  };
}
