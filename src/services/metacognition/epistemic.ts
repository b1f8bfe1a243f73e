import { isSpaceId, spaceById } from '../../embed/spaces/registry.js';
import type { FingerprintRow } from '../../store/fingerprints-repo.js';
import type { NodeRecord } from '../../store/nodes-repo.js';
import { utlWeight } from '../fingerprints.js';
import { excerpt } from './text.js';

/** US-MCP-002: an agent is "low coherence" below this ΔC. */
export const LOW_COHERENCE = 0.4;
/** EC-MCP-003: with fewer memories there is nothing to focus on; ask about the domain and goals. */
export const MIN_MEMORIES_FOR_FOCUS = 10;
/** US-MCP-002 "3+ exchanges": coherence is judged over at least this many fingerprinted memories. */
export const MIN_EXCHANGES = 3;
export const FOCAL_NODES = 3;

export interface FocalNode {
  node: NodeRecord;
  coherence: number;
  weakest_space: string;
  weakest_coherence: number;
  edges: number;
}

export interface EpistemicDecision {
  triggered: boolean;
  reason: string;
  /** Weighted mean ΔC of the memories judged (session or latest); null before any fingerprint. */
  coherence_before: number | null;
  expected_entropy_reduction: number;
  focal: FocalNode[];
  question: string | null;
  suggested_follow_up: string | null;
  judged: number;
  source: 'session' | 'latest';
}

const round = (x: number) => Math.round(x * 1e4) / 1e4;

/** A memory's coherence over its spaces, weighted as L weighs them (fusion weight, at least 1/13). */
export function nodeCoherence(fp: FingerprintRow): { coherence: number; weakest: string; weakestValue: number } {
  let total = 0;
  let sum = 0;
  let weakest = fp.spaces[0] ?? 'E1';
  let weakestValue = Infinity;
  fp.spaces.forEach((space, i) => {
    if (!isSpaceId(space)) return;
    const w = utlWeight(space);
    total += w;
    sum += w * fp.coherence[i]!;
    if (fp.coherence[i]! < weakestValue) [weakest, weakestValue] = [space, fp.coherence[i]!];
  });
  return { coherence: total > 0 ? sum / total : 0, weakest, weakestValue: Number.isFinite(weakestValue) ? weakestValue : 0 };
}

/**
 * Whether to ask the user something, and what. Coherence is the weighted ΔC of the memories the
 * session touched (else the latest ones). Low coherence (< 0.4 over ≥ 3 memories) or `force`
 * asks about the FOCAL_NODES least coherent ones; the expected entropy reduction is the share of
 * the judged memories' incoherence (Σ 1 − ΔC) those focal memories hold: what the answer could
 * resolve if it placed them. Under 10 memories: a generic question about domain and goals.
 */
export function decideEpistemicAction(q: {
  force: boolean;
  memories: number;
  candidates: readonly NodeRecord[];
  fingerprints: ReadonlyMap<number, FingerprintRow>;
  edges: ReadonlyMap<number, number>;
  topics: readonly string[];
  source: 'session' | 'latest';
}): EpistemicDecision {
  const judged = q.candidates.flatMap((node) => {
    const fp = q.fingerprints.get(node.nid);
    if (!fp) return [];
    const c = nodeCoherence(fp);
    return [{ node, coherence: c.coherence, weakest_space: c.weakest, weakest_coherence: round(c.weakestValue), edges: q.edges.get(node.nid) ?? 0 }];
  });
  const coherenceBefore = judged.length ? round(judged.reduce((s, j) => s + j.coherence, 0) / judged.length) : null;
  const base = { coherence_before: coherenceBefore, judged: judged.length, source: q.source };

  if (q.memories < MIN_MEMORIES_FOR_FOCUS) {
    const incoherence = coherenceBefore === null ? 1 : 1 - coherenceBefore;
    const known = q.topics.length
      ? ` So far it holds ${q.memories} memor${q.memories === 1 ? 'y' : 'ies'}${q.topics.length ? ` about ${q.topics.slice(0, 3).join(', ')}` : ''}.`
      : ` So far it holds ${q.memories} memor${q.memories === 1 ? 'y' : 'ies'}.`;
    return {
      ...base,
      triggered: true,
      reason: `only ${q.memories} memories (fewer than ${MIN_MEMORIES_FOR_FOCUS}): nothing to focus a question on yet`,
      expected_entropy_reduction: round(incoherence),
      focal: [],
      question: `What domain are you working in, and what goals or standing facts should I remember for it?${known}`,
      suggested_follow_up: 'Store the answer as memories (store), one fact each, with a topic.',
    };
  }
  const low = coherenceBefore !== null && judged.length >= MIN_EXCHANGES && coherenceBefore < LOW_COHERENCE;
  if (!q.force && !low) {
    return {
      ...base,
      triggered: false,
      reason:
        coherenceBefore === null
          ? 'no fingerprint yet for the memories in view (the fingerprint job runs after embedding); pass force to ask anyway'
          : judged.length < MIN_EXCHANGES
            ? `only ${judged.length} fingerprinted memories in view (fewer than ${MIN_EXCHANGES})`
            : `coherence ${coherenceBefore} is not below ${LOW_COHERENCE}`,
      expected_entropy_reduction: 0,
      focal: [],
      question: null,
      suggested_follow_up: null,
    };
  }
  const focal = [...judged].sort((a, b) => a.coherence - b.coherence || a.node.nid - b.node.nid).slice(0, FOCAL_NODES);
  const total = judged.reduce((s, j) => s + (1 - j.coherence), 0);
  const share = total > 0 ? focal.reduce((s, j) => s + (1 - j.coherence), 0) / total : 0;
  const spaces = [...new Set(focal.map((f) => `${f.weakest_space} ${spaceName(f.weakest_space)}`))].join(', ');
  const about = q.topics.length ? ` to ${q.topics.slice(0, 2).join(' and ')}` : ' to the rest of what you told me';
  const quoted = focal.map((f) => `"${excerpt(f.node.content, 60)}"`).join('; ');
  return {
    ...base,
    triggered: true,
    reason: low ? `coherence ${coherenceBefore} < ${LOW_COHERENCE} over ${judged.length} memories` : 'forced',
    expected_entropy_reduction: round(share),
    focal,
    question: `These memories fit least with the others (weakest in ${spaces}): ${quoted}. How do they relate${about}, and are they still accurate?`,
    suggested_follow_up: focal.some((f) => f.edges === 0)
      ? 'Link what the user confirms (relate) and correct or forget what they reject (update, forget_concept).'
      : 'Annotate or update the focal memories with the answer (annotate_node, update).',
  };
}

function spaceName(id: string): string {
  return isSpaceId(id) ? spaceById(id).name : id;
}
