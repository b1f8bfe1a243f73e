import { causalParts, causalQuestion } from '../../embed/encoders/causal.js';
import { codeTerms, entityTerms } from '../../embed/encoders/terms.js';
import { CAUSE_FOLLOWS_CUES, EFFECT_FOLLOWS_CUES } from '../../embed/causal-cues.js';
import { stem, STOP_WORDS } from '../../embed/keyword.js';
import type { NodeRecord } from '../../store/nodes-repo.js';
import { textFacts } from './text.js';

/** The space families a search plan can aim at, each with its space ids and search_graph profile. */
export const PLAN_SPACES = {
  semantic: { spaces: ['E1', 'E10', 'E13'], profile: 'default' },
  causal: { spaces: ['E5'], profile: 'causal' },
  code: { spaces: ['E7'], profile: 'code' },
  entity: { spaces: ['E11'], profile: 'entity' },
  temporal: { spaces: ['E2', 'E3', 'E4'], profile: 'temporal' },
} as const;
export type PlanSpace = keyof typeof PLAN_SPACES;
export const PLAN_SPACE_NAMES = ['semantic', 'causal', 'code', 'entity', 'temporal'] as const satisfies readonly PlanSpace[];

export interface PlannedQuery {
  query: string;
  target_space: PlanSpace;
  space_ids: string[];
  profile: string;
  why: string;
  /** How many of the goal's memories back this query, and the store words it is built from. */
  evidence: { memories: number; terms: string[] };
}

interface Word {
  key: string;
  surface: string;
}

/** Connectives that carry no topic: the causal cue words and a few of time and quantity. */
const FILLER = new Set([
  ...[...CAUSE_FOLLOWS_CUES, ...EFFECT_FOLLOWS_CUES].flatMap((c) => c.split(/\s+/)),
  ...'after before during every each also only just very more most other some any all still then once'.split(' '),
]);

/** Words as written (lower case) with their stems; stop words, connectives and one-letter words out. */
function words(text: string): Word[] {
  return (text.toLowerCase().match(/[\p{L}][\p{L}\p{N}'-]*/gu) ?? [])
    .filter((w) => w.length > 1 && !STOP_WORDS.has(w) && !FILLER.has(w))
    .map((w) => ({ key: stem(w), surface: w }));
}

const top = <T>(counts: Map<T, number>, n: number) =>
  [...counts]
    .sort((a, b) => b[1] - a[1] || String(a[0]).localeCompare(String(b[0])))
    .slice(0, n)
    .map(([k]) => k);

/**
 * Three queries for a goal, each aimed at a different space family, built from the store's own
 * vocabulary: the memories that share the goal's words (`related`) give co-occurring words
 * (ranked by how many related memories use them × their IDF in `sample`), names (entities table
 * and E11 terms), identifiers (E7 terms), causal clauses (the E5 cue list) and dates. Spaces the
 * caller focuses on come first; the others in order of how much stored evidence backs them.
 */
export function searchPlan(
  goal: string,
  q: { related: readonly NodeRecord[]; sample: readonly NodeRecord[]; entities: readonly string[]; focus: readonly PlanSpace[] },
): PlannedQuery[] {
  const goalWords = words(goal);
  const goalKeys = new Set(goalWords.map((w) => w.key));
  const df = new Map<string, number>();
  for (const n of q.sample) for (const k of new Set(words(n.content).map((w) => w.key))) df.set(k, (df.get(k) ?? 0) + 1);
  const surfaces = new Map<string, Map<string, number>>();
  const co = new Map<string, number>();
  for (const n of q.related) {
    for (const w of words(`${n.topic ?? ''} ${n.content}`)) {
      const s = surfaces.get(w.key) ?? new Map<string, number>();
      s.set(w.surface, (s.get(w.surface) ?? 0) + 1);
      surfaces.set(w.key, s);
    }
    for (const k of new Set(words(`${n.topic ?? ''} ${n.content}`).map((w) => w.key))) if (!goalKeys.has(k)) co.set(k, (co.get(k) ?? 0) + 1);
  }
  const N = Math.max(1, q.sample.length);
  for (const [k, c] of co) co.set(k, c * Math.log(1 + N / (df.get(k) ?? 1)));
  const coWords = top(co, 6).map((k) => top(surfaces.get(k)!, 1)[0]!);
  const core = [...new Map(goalWords.map((w) => [w.key, w.surface])).values()].slice(0, 6);
  const related = q.related.length;

  const entityCounts = new Map<string, number>();
  const idCounts = new Map<string, number>();
  const causal: Array<{ effect: string; cause: string }> = [];
  const dateCounts = new Map<string, number>();
  // Evidence per family: how many related memories carry a name, an identifier, a cause, a date.
  const carrying = { entity: 0, code: 0, temporal: 0 };
  for (const n of q.related) {
    const lower = n.content.toLowerCase();
    const named = new Set<string>();
    const name = (term: string, weight: number) => {
      named.add(term);
      entityCounts.set(term, (entityCounts.get(term) ?? 0) + weight);
    };
    // Names from the entities table weigh double: relate made them entities on purpose.
    for (const entity of q.entities) if (lower.includes(entity.toLowerCase())) name(entity, 2);
    for (const [term, c] of entityTerms(n.content)) if (!term.includes(':') && !term.startsWith('@') && !term.startsWith('#') && !goalKeys.has(stem(term))) name(term, c);
    let ids = 0;
    for (const [term, c] of codeTerms(n.content)) {
      if (!term.startsWith('id:')) continue;
      ids++;
      idCounts.set(term.slice(3), (idCounts.get(term.slice(3)) ?? 0) + c);
    }
    const parts = causalParts(n.content);
    if (parts) causal.push(parts);
    const dates = textFacts(n.content).dates;
    for (const d of dates) dateCounts.set(d, (dateCounts.get(d) ?? 0) + 1);
    if (named.size) carrying.entity++;
    if (ids) carrying.code++;
    if (dates.length) carrying.temporal++;
  }
  const names = top(entityCounts, 3);
  const ids = top(idCounts, 3);
  const dates = top(dateCounts, 2);
  const clip = (s: string, n = 8) =>
    s
      .replace(/[.,;:!?]+$/g, '')
      .split(/\s+/)
      .filter(Boolean)
      .slice(0, n)
      .join(' ');

  // A why-question is itself causal evidence: the goal asks for a cause.
  const asked = causalQuestion(goal);
  const evidence: Record<PlanSpace, number> = {
    semantic: related,
    causal: causal.length + (asked ? 1 : 0),
    code: carrying.code,
    entity: carrying.entity,
    temporal: carrying.temporal,
  };
  const build: Record<PlanSpace, () => Omit<PlannedQuery, 'target_space' | 'space_ids' | 'profile'>> = {
    semantic: () => ({
      query: [...core, ...coWords.slice(0, 3)].join(' '),
      why: related
        ? `${related} stored memories share the goal's words; "${coWords.slice(0, 3).join('", "')}" co-occur with them most (frequency × IDF in ${q.sample.length} memories), so meaning search (E1, E10, E13) reaches their neighbours too.`
        : "No stored memory shares the goal's words yet: the goal alone, for meaning search (E1, E10, E13).",
      evidence: { memories: related, terms: coWords.slice(0, 3) },
    }),
    causal: () => {
      const effect = causal[0] ? clip(causal[0].effect) : '';
      const query = asked ? `why ${clip(asked.topic)} ${coWords[0] ?? ''}`.trim() : effect ? `what caused ${effect}` : `why ${core.join(' ')}`;
      return {
        query,
        why: causal.length
          ? `${causal.length} related memories state a cause (cue phrases of E5), e.g. "${clip(causal[0]!.cause, 10)}" → "${effect}"; a why-question reaches the cause side in E5.`
          : 'No related memory states a cause yet; a why-question lets E5 match causes stated later.',
        evidence: { memories: causal.length, terms: effect ? effect.split(' ').slice(0, 4) : [] },
      };
    },
    code: () => ({
      query: ids.length ? [...ids, ...core.slice(0, 2)].join(' ') : core.join(' '),
      why: ids.length
        ? `Identifiers in the related memories (E7 code terms): ${ids.join(', ')}; exact names match in E7.`
        : "No identifier occurs in the related memories; the goal's words for E7.",
      evidence: { memories: carrying.code, terms: ids },
    }),
    entity: () => ({
      query: names.length ? [...names, ...core.slice(0, 2)].join(' ') : core.join(' '),
      why: names.length
        ? `Names the related memories share (entities and E11 name terms): ${names.join(', ')}; E11 matches memories through the names they share.`
        : "No named entity occurs in the related memories; the goal's words for E11.",
      evidence: { memories: carrying.entity, terms: names },
    }),
    temporal: () => ({
      query: dates.length ? `when ${core.slice(0, 4).join(' ')} ${dates.join(' ')}` : `when ${core.slice(0, 4).join(' ')} recently`,
      why: dates.length
        ? `Related memories state times (${dates.join(', ')}); the temporal profile weighs recency and period (E2–E4), and a "when" question lifts memories that state a time.`
        : 'No related memory states a date; a recency-weighted "when" query (E2–E4).',
      evidence: { memories: carrying.temporal, terms: dates },
    }),
  };
  const order = [...new Set([...q.focus, ...[...PLAN_SPACE_NAMES].sort((a, b) => evidence[b] - evidence[a] || PLAN_SPACE_NAMES.indexOf(a) - PLAN_SPACE_NAMES.indexOf(b))])].slice(
    0,
    3,
  );
  return order.map((space) => ({ target_space: space, space_ids: [...PLAN_SPACES[space].spaces], profile: PLAN_SPACES[space].profile, ...build[space]() }));
}
