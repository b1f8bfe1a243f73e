import type { Db } from '../store/db.js';
import { matchingNodes } from '../store/facets-repo.js';
import { nodesByNid, type NodeRecord } from '../store/nodes-repo.js';
import { facetQuery, topicMatches, type SearchFilters } from './candidates.js';
import type { FusedHit } from './fusion.js';

/**
 * Ranking with the conversation around a hit, after fusion. Each choice was measured on the
 * LoCoMo dev set (bench --parts locomo; figures R@5/10/25/50, all categories, against
 * 56.6/65.9/75.7/82.7 for fusion alone) and kept because it helped:
 *
 * - Neighbours: the memories stored just before and after a strong hit in its project (a
 *   conversation's adjacent turns) often carry the answer: the reply to a question, the
 *   detail after a topic is raised. Each of the best NEIGHBOUR_HEAD fused hits passes
 *   NEIGHBOUR_SHARE of its score to up to NEIGHBOUR_SPAN memories either side: 62.5/72.4/82.7/88.4
 *   from the best 50 hits, better still from the best 20 (with the time cue below,
 *   64.0/74.3/84.3/89.4 against 63.6/72.9/82.8/88.6): further down, neighbours of weak hits
 *   crowd out. From the best 10 (a limit of 5 or less) R@5/10 were higher still, R@25/50 lower.
 * - Time cue: a "when" question is answered by a memory that says when. Memories stating a
 *   time ("yesterday", "last week", "two years ago", a month or a year) are scaled by
 *   1 + TIME_CUE_BOOST for such questions: with neighbours, 63.6/72.9/82.8/88.6, and the
 *   temporal category above BM25 at every k (it was below at R@5/10).
 * - Speaker cue: a memory written as a chat turn ("Caroline: …") whose speaker the question
 *   names is scaled by 1 + SPEAKER_CUE_BOOST: 64.0/74.3/84.3/89.4 → 65.0/75.4/84.1/89.9. A
 *   larger boost (0.4) hurt the adversarial category, whose questions name the wrong speaker.
 */
export const NEIGHBOUR_HEAD = 20;
/** The head for a small limit (twice the limit, at least this). */
const MIN_NEIGHBOUR_HEAD = 10;
export const NEIGHBOUR_SPAN = 2;
export const NEIGHBOUR_SHARE = 0.2;
export const NEIGHBOUR_REACH = 3;
export const TIME_CUE_BOOST = 0.3;
export const SPEAKER_CUE_BOOST = 0.1;

const WHEN_QUESTION = /^\s*(?:when\b|since when\b|how long ago\b|(?:in |on )?(?:what|which) (?:year|month|date|day|week|time)\b)/i;
const MONTH = 'january|february|march|april|may|june|july|august|september|october|november|december';
const WEEKDAY = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday';
const PERIOD = `night|morning|evening|weekend|week|month|year|summer|winter|spring|fall|autumn|${WEEKDAY}`;
const TIME_EXPRESSION = new RegExp(
  [
    'yesterday|today|tonight|tomorrow|recently|ago',
    `(?:last|next|this|past) (?:${PERIOD})`,
    `(?:${MONTH})`,
    `(?:on |last |next )(?:${WEEKDAY})`,
    '(?:19|20)\\d\\d',
    '\\d{1,2}/\\d{1,2}(?:/\\d{2,4})?',
  ]
    .map((p) => `\\b(?:${p})\\b`)
    .join('|'),
  'i',
);

// "Name: text" or "Name Surname: text" at the start of a memory, as chat transcripts are stored.
const SPEAKER_LABEL = /^\s*(\p{Lu}[\p{L}'-]*(?: \p{Lu}[\p{L}'-]*){0,2}):\s/u;
const WORD = /[\p{L}\p{N}'-]+/gu;

/** The speaker's name when the memory is a chat turn ("Caroline: …"), lower-cased; else null. */
export function speakerOf(content: string): string | null {
  return SPEAKER_LABEL.exec(content)?.[1]!.toLowerCase() ?? null;
}

/** Whether the question names the speaker: every word of the name is a word of the question. */
export function namesSpeaker(questionWords: ReadonlySet<string>, speaker: string | null): boolean {
  return speaker !== null && speaker.split(' ').every((w) => questionWords.has(w));
}

/** Lower-cased words of a question, for namesSpeaker (a possessive "'s" is dropped). */
export function questionWords(text: string): Set<string> {
  return new Set((text.toLowerCase().match(WORD) ?? []).map((w) => w.replace(/'s$/, '')));
}

/**
 * The factor a memory's score is scaled by for what its text says to this question: the time
 * cue and the speaker cue above (1 when neither applies).
 */
export function cueFactor(question: { when: boolean; words: ReadonlySet<string> }, content: string): number {
  const time = question.when && statesATime(content) ? 1 + TIME_CUE_BOOST : 1;
  return time * (namesSpeaker(question.words, speakerOf(content)) ? 1 + SPEAKER_CUE_BOOST : 1);
}

export function isWhenQuestion(text: string): boolean {
  return WHEN_QUESTION.test(text);
}

export function statesATime(text: string): boolean {
  return TIME_EXPRESSION.test(text);
}

/**
 * Fused hits plus their neighbours (hits with no signal of their own), each with its score
 * after neighbour propagation, best first. A neighbour is one of the NEIGHBOUR_SPAN nearest
 * memories on either side of a hit in storing (nid) order, in the hit's project, passing the
 * same filters, looked for within NEIGHBOUR_REACH nids: one primary-key lookup for all hits
 * (a per-hit ordered scan cost more to plan than to run), and a conversation stored in one go
 * is contiguous anyway. The same statement checks the keys of `verify` (candidates nobody
 * checked yet: unfilteredCandidates), which are in `passed` when they pass the filters; the
 * whole rows of `rowsFor` (the hits likely to be shown) that pass are read next, into `rows`.
 */
export async function withNeighbours(
  db: Db,
  fused: readonly FusedHit[],
  filters: SearchFilters,
  limit: number,
  rowsFor: readonly number[] = [],
  verify: Iterable<number> = [],
): Promise<{ ranked: FusedHit[]; rows: Map<number, NodeRecord>; passed: Set<number> }> {
  // A short answer needs fewer neighbours: each head hit costs 2·NEIGHBOUR_REACH + 1 key lookups.
  const head = fused.slice(0, Math.min(NEIGHBOUR_HEAD, Math.max(MIN_NEIGHBOUR_HEAD, 2 * limit)));
  const probe = new Set<number>([...rowsFor, ...verify]);
  for (const h of head) for (let d = -NEIGHBOUR_REACH; d <= NEIGHBOUR_REACH; d++) if (h.key + d > 0) probe.add(h.key + d);
  const found = await matchingNodes(db, facetQuery(filters), [...probe]);
  const projectOf = new Map(found.filter((r) => topicMatches(r.topic, filters)).map((r) => [r.nid, r.project_id]));
  const passed = new Set(projectOf.keys());
  // Only the rows that passed are read whole: at 100k memories a narrow probe and a separate read
  // of ten rows cost less than one statement carrying both (bench/results/2026-11-27-session5).
  const rows = new Map(
    (
      await nodesByNid(
        db,
        rowsFor.filter((nid) => passed.has(nid)),
      )
    ).map((n) => [n.nid, n]),
  );
  if (head.length === 0) return { ranked: [...fused], rows, passed };
  const byKey = new Map(fused.map((h) => [h.key, { ...h }]));
  for (const h of head) {
    const project = projectOf.get(h.key);
    if (project === undefined) continue;
    for (const step of [-1, 1]) {
      let found = 0;
      for (let d = 1; d <= NEIGHBOUR_REACH && found < NEIGHBOUR_SPAN; d++) {
        const key = h.key + step * d;
        if (projectOf.get(key) !== project) continue;
        found++;
        const entry = byKey.get(key) ?? { key, score: 0, signals: {} };
        entry.score += NEIGHBOUR_SHARE * h.score;
        byKey.set(key, entry);
      }
    }
  }
  return { ranked: [...byKey.values()].sort((a, b) => b.score - a.score || a.key - b.key), rows, passed };
}
