import type { Db } from '../../store/db.js';
import { vectorsOf } from '../../store/curation-repo.js';
import { entityNames, latestMemories, memoriesWithTopics, sameHashMemories } from '../../store/metacognition-repo.js';
import type { NodeRecord } from '../../store/nodes-repo.js';
import { NEAR_DUPLICATE_SIMILARITY } from '../memory.js';
import { cosine, disagreement, excerpt, textFacts, type TextFacts } from './text.js';

export const CHECK_TYPES = ['conflicts', 'duplicates', 'outdated', 'low_confidence'] as const;
export type CheckType = (typeof CHECK_TYPES)[number];

/** Content-word overlap above which two statements are about the same thing. */
export const SAME_STATEMENT_OVERLAP = 0.5;
/** Lower bar when something else says they share a subject (topic, entity, or E1 closeness). */
export const SHARED_SUBJECT_OVERLAP = 0.3;
/** E1 cosine at which two memories are taken to share a subject. */
export const SAME_SUBJECT_COSINE = 0.8;
/** Stored confidence below which a memory is reported as low-confidence. */
export const LOW_CONFIDENCE = 0.5;
/** Older memories (same topic as one in the window) a conflict check also compares against. */
const TOPIC_PEERS = 200;

export interface Finding {
  check: CheckType;
  kind: string;
  node_ids: string[];
  detail: string;
  /** How sure the finding is, from what it was measured with (overlap, cosine, confidence). */
  score: number;
}

export interface Critique {
  window: NodeRecord[];
  compared: number;
  findings: Finding[];
}

const round = (x: number) => Math.round(x * 1e4) / 1e4;

/**
 * Critique of the `window` most recent memories: conflicts (same subject, disagreeing by
 * negation, numbers or dates; superseded pairs), duplicates (same hash, or E1 cosine ≥ 0.9),
 * outdated (validity ended or superseded) and low confidence. Conflicts and duplicates also look
 * at older memories of the same topic, so a new memory contradicting an old one is found.
 */
export async function critiqueContext(db: Db, q: { window: number; checks: readonly CheckType[]; projectId: string | null; now: Date }): Promise<Critique> {
  const window = await latestMemories(db, q.projectId, q.window);
  const checks = new Set(q.checks);
  const findings: Finding[] = [];
  const pairwise = checks.has('conflicts') || checks.has('duplicates');
  const peers = pairwise
    ? await memoriesWithTopics(
        db,
        window.filter((n) => n.topic).map((n) => ({ projectId: n.project_id, topic: n.topic! })),
        window.map((n) => n.nid),
        TOPIC_PEERS,
      )
    : [];
  const all = [...window, ...peers];
  const vectors = pairwise
    ? await vectorsOf(
        db,
        all.map((n) => n.nid),
        'E1',
      )
    : new Map<number, Float32Array>();
  const pairs: Array<[NodeRecord, NodeRecord]> = [];
  for (let i = 0; i < window.length; i++) for (let j = i + 1; j < all.length; j++) if (all[j]!.project_id === window[i]!.project_id) pairs.push([window[i]!, all[j]!]);

  if (checks.has('conflicts')) findings.push(...(await conflicts(db, pairs, vectors, q.projectId)));
  if (checks.has('duplicates')) {
    const exact = new Map<string, NodeRecord[]>();
    for (const n of [...window, ...(await sameHashMemories(db, window))])
      exact.set(`${n.project_id}|${n.content_hash}`, [...(exact.get(`${n.project_id}|${n.content_hash}`) ?? []), n]);
    const exactIds = new Set<string>();
    for (const group of exact.values()) {
      const ids = [...new Set(group.map((n) => n.id))];
      if (ids.length < 2) continue;
      ids.forEach((id) => exactIds.add(id));
      findings.push({ check: 'duplicates', kind: 'exact', node_ids: ids, detail: `same content hash: "${excerpt(group[0]!.content)}"`, score: 1 });
    }
    for (const [a, b] of pairs) {
      if (exactIds.has(a.id) && exactIds.has(b.id)) continue;
      const va = vectors.get(a.nid);
      const vb = vectors.get(b.nid);
      if (!va || !vb) continue;
      const sim = cosine(va, vb);
      if (sim >= NEAR_DUPLICATE_SIMILARITY) findings.push({ check: 'duplicates', kind: 'near', node_ids: [a.id, b.id], detail: `E1 cosine ${sim.toFixed(3)}`, score: round(sim) });
    }
  }
  if (checks.has('outdated')) {
    for (const n of window) {
      const by = n.metadata.superseded_by;
      if (typeof by === 'string') findings.push({ check: 'outdated', kind: 'superseded', node_ids: [n.id, by], detail: `superseded by ${by}`, score: 1 });
      else if (n.valid_to && n.valid_to.getTime() <= q.now.getTime())
        findings.push({ check: 'outdated', kind: 'expired', node_ids: [n.id], detail: `valid until ${n.valid_to.toISOString()}`, score: 1 });
    }
  }
  if (checks.has('low_confidence')) {
    for (const n of window)
      if (n.confidence < LOW_CONFIDENCE)
        findings.push({
          check: 'low_confidence',
          kind: 'stored_confidence',
          node_ids: [n.id],
          detail: `confidence ${n.confidence.toFixed(2)} < ${LOW_CONFIDENCE}`,
          score: round(1 - n.confidence),
        });
  }
  return { window, compared: pairs.length, findings };
}

async function conflicts(db: Db, pairs: ReadonlyArray<[NodeRecord, NodeRecord]>, vectors: ReadonlyMap<number, Float32Array>, projectId: string | null): Promise<Finding[]> {
  const names = (await entityNames(db, projectId, 500)).map((n) => n.toLowerCase()).filter((n) => n.length >= 3);
  const facts = new Map<number, TextFacts>();
  const factsOf = (n: NodeRecord) => facts.get(n.nid) ?? (facts.set(n.nid, textFacts(`${n.topic ?? ''} ${n.content}`)), facts.get(n.nid)!);
  const mentions = (n: NodeRecord) => names.filter((name) => n.content.toLowerCase().includes(name));
  const out: Finding[] = [];
  for (const [a, b] of pairs) {
    if (a.metadata.superseded_by === b.id || b.metadata.superseded_by === a.id) {
      const [old, fresh] = a.metadata.superseded_by === b.id ? [a, b] : [b, a];
      out.push({
        check: 'conflicts',
        kind: 'superseded',
        node_ids: [old.id, fresh.id],
        detail: `resolved: "${excerpt(old.content, 60)}" was superseded by "${excerpt(fresh.content, 60)}"`,
        score: 1,
      });
      continue;
    }
    const va = vectors.get(a.nid);
    const vb = vectors.get(b.nid);
    const sameTopic = !!a.topic && a.topic.toLowerCase() === b.topic?.toLowerCase();
    const sharedEntity = mentions(a).find((name) => b.content.toLowerCase().includes(name));
    const sim = va && vb ? cosine(va, vb) : 0;
    const subject = sameTopic
      ? `the same topic "${a.topic}"`
      : sharedEntity
        ? `the same entity "${sharedEntity}"`
        : sim >= SAME_SUBJECT_COSINE
          ? `close in meaning (E1 cosine ${sim.toFixed(2)})`
          : null;
    const { overlap, found } = disagreement(factsOf(a), factsOf(b), subject ? SHARED_SUBJECT_OVERLAP : SAME_STATEMENT_OVERLAP);
    if (found.length === 0) continue;
    out.push({
      check: 'conflicts',
      kind: found.map((f) => f.kind).join('+'),
      node_ids: [a.id, b.id],
      detail: `${subject ?? 'the same statement'} (word overlap ${overlap.toFixed(2)}), but ${found.map((f) => f.detail).join('; ')}`,
      score: round(overlap),
    });
  }
  return out;
}
