import type { Embedder } from '../../embed/embedder.js';
import type { Db } from '../../store/db.js';
import { liveEdgesAround } from '../../store/edges-repo.js';
import { nodesByNid } from '../../store/nodes-repo.js';
import { causalStatements } from '../navigation/cause-text.js';
import { CLAUSE_MIN_SIMILARITY } from '../navigation/link-plan.js';
import type { NearestMemories } from '../navigation/nearest.js';

/**
 * circular_logic: the Causal edges a text would join, and whether they close a loop. The text
 * stands for the memories it restates (E1 cosine ≥ CLAUSE_MIN_SIMILARITY, the bar the link job
 * matches clauses with); each causal statement links it to the memory its clause states, as the
 * link job would (src/services/navigation/link-plan.ts): "<text> because <clause>" makes the
 * clause's memory a cause, "<text> so <clause>" an effect. A loop exists when something the text
 * causes already leads, through live Causal edges, back to something that causes it.
 */

/** Hops searched for a way back (the immune-system spec's cycle depth). */
export const CYCLE_MAX_HOPS = 10;
const LEVEL_LIMIT = 2_000;

export interface CircularVerdict {
  flagged: boolean;
  /** Memories the text restates (it stands for them in the graph). */
  restates: string[];
  /** Memories its statements name as causes and effects. */
  causes: string[];
  effects: string[];
  /** The loop found: node ids from the text's effect back to its cause ("text" marks the text itself). */
  cycle: string[] | null;
  reason: string;
}

/** Forward BFS over live Causal edges from `from`; the first walk reaching `to`, or null. */
async function pathForward(db: Db, from: readonly string[], to: ReadonlySet<string>): Promise<string[] | null> {
  const parent = new Map<string, string | null>(from.map((id) => [id, null]));
  let frontier = [...from];
  for (let hop = 0; hop < CYCLE_MAX_HOPS && frontier.length > 0; hop++) {
    const edges = await liveEdgesAround(db, { nodeIds: frontier, edgeTypes: ['Causal'], minWeight: 0, direction: 'out', limit: LEVEL_LIMIT });
    const next: string[] = [];
    for (const e of edges) {
      if (parent.has(e.far_id)) continue;
      parent.set(e.far_id, e.src);
      if (to.has(e.far_id)) {
        const walk: string[] = [];
        for (let cur: string | null | undefined = e.far_id; cur; cur = parent.get(cur)) walk.unshift(cur);
        return walk;
      }
      next.push(e.far_id);
    }
    frontier = next;
  }
  return null;
}

export async function judgeCircular(
  deps: { db: Db; embedder: Embedder; nearest: NearestMemories },
  text: string,
  projectId: string,
  selfNid: number | null = null,
): Promise<CircularVerdict> {
  const statements = causalStatements(text).filter((s) => s.clause !== '');
  const vectors = (await deps.embedder.embed([text, ...statements.map((s) => s.clause)], ['E1'])).get('E1') ?? [];
  const matchOf = async (vector: Float32Array | undefined, k: number) =>
    vector ? (await deps.nearest.nearest(projectId, vector, k + 1)).filter((h) => h.nid !== selfNid && h.similarity >= CLAUSE_MIN_SIMILARITY).slice(0, k) : [];
  const restateHits = await matchOf(vectors[0], 3);
  const clauseHits = await Promise.all(statements.map((_, i) => matchOf(vectors[i + 1], 1)));
  const nids = [...new Set([...restateHits, ...clauseHits.flat()].map((h) => h.nid))];
  const idOf = new Map((await nodesByNid(deps.db, nids)).filter((n) => n.deleted_at === null).map((n) => [n.nid, n.id]));
  // A memory a clause states is that clause's, not the whole text's (the text contains the clause).
  const clauseNids = new Set(clauseHits.flat().map((h) => h.nid));
  const restates = [...new Set(restateHits.filter((h) => !clauseNids.has(h.nid)).flatMap((h) => idOf.get(h.nid) ?? []))];
  if (selfNid !== null) {
    const [self] = await nodesByNid(deps.db, [selfNid]);
    if (self) restates.unshift(self.id);
  }
  const causes: string[] = [];
  const effects: string[] = [];
  statements.forEach((s, i) => {
    const hit = clauseHits[i]?.[0];
    const id = hit ? idOf.get(hit.nid) : undefined;
    if (id) (s.role === 'cause_follows' ? causes : effects).push(id);
  });
  const self = new Set(restates);
  const base = { restates, causes: [...new Set(causes)], effects: [...new Set(effects)] };
  // The text names one memory as both its cause and its effect, or as itself.
  const both = causes.find((c) => effects.includes(c) || self.has(c)) ?? effects.find((e) => self.has(e));
  if (both) return { ...base, flagged: true, cycle: ['text', both, 'text'], reason: `the text is its own cause through ${both}` };
  // What the text leads to (its effects, and the effects of what it restates) reaching what causes it.
  const targets = new Set([...causes, ...restates]);
  const starts = [...new Set([...effects, ...restates])];
  if (targets.size === 0 || starts.length === 0) return { ...base, flagged: false, cycle: null, reason: 'the text joins no causal chain that could close' };
  for (const start of starts) {
    const walk = await pathForward(deps.db, [start], new Set([...targets].filter((t) => t !== start || causes.includes(t))));
    if (walk) return { ...base, flagged: true, cycle: ['text', ...walk, 'text'], reason: `a causal loop: ${walk.join(' → ')} leads back to the text` };
  }
  return { ...base, flagged: false, cycle: null, reason: `no causal path (up to ${CYCLE_MAX_HOPS} hops) leads from its effects back to its causes` };
}
