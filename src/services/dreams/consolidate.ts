import type { NodeRecord } from '../../store/nodes-repo.js';
import { nodesByNid } from '../../store/nodes-repo.js';
import { summarizedBy } from '../../store/dreams-repo.js';
import { vectorsOf } from '../../store/navigation-repo.js';
import { LINK_SPACE } from '../navigation/nearest.js';
import { citedExtract, SUMMARY_KIND } from '../summaries.js';
import { clusterKey, clustersOf } from './evidence.js';
import type { PhaseEnv } from './phase-env.js';

/** Nearest memories looked at per replayed memory when looking for its near-duplicates. */
const NEAR_K = 8;
/** The most memories one consolidated summary covers (a chain of near-duplicates is cut there). */
export const CLUSTER_MAX = 20;

/** A near-duplicate cluster to consolidate: its members (oldest first) and the summary to write. */
export interface ClusterPlan {
  key: string;
  members: NodeRecord[];
  /** The lowest similarity that joined a member to the cluster. */
  minSimilarity: number;
  content: string;
  method: 'sampling' | 'extractive';
  model: string | null;
}

/**
 * Near-duplicate clusters among `memories` and their E1 neighbours (cosine ≥ minSimilarity),
 * each with its summary: the client's model's when the tool sampled one for exactly this cluster,
 * cited sentences otherwise. Clusters a live summary already covers whole are left out, so a
 * second dream over the same memories writes nothing.
 */
export async function planClusters(env: PhaseEnv, memories: readonly NodeRecord[]): Promise<ClusterPlan[]> {
  const vectors = await vectorsOf(
    env.db,
    LINK_SPACE,
    memories.map((m) => m.nid),
  );
  const pairs: Array<readonly [number, number]> = [];
  const similarity = new Map<string, number>();
  for (const [i, m] of memories.entries()) {
    await env.run.checkpoint();
    if (!env.run.spend()) break;
    const v = vectors.get(m.nid);
    if (v) {
      for (const n of await env.nearest.nearest(env.projectId, v, NEAR_K)) {
        if (n.nid === m.nid || n.similarity < env.minSimilarity) continue;
        pairs.push([m.nid, n.nid]);
        similarity.set(`${Math.min(m.nid, n.nid)}-${Math.max(m.nid, n.nid)}`, n.similarity);
      }
    }
    if (i % 50 === 49) await env.report('near-duplicates', i + 1, memories.length, { near_duplicate_pairs: pairs.length });
  }
  const nids = [...new Set(pairs.flat())];
  const nodes = new Map<number, NodeRecord>();
  for (let i = 0; i < nids.length; i += 1_000) {
    for (const n of await nodesByNid(env.db, nids.slice(i, i + 1_000))) {
      if (n.deleted_at === null && n.project_id === env.projectId && n.kind !== 'entity' && n.kind !== SUMMARY_KIND) nodes.set(n.nid, n);
    }
  }
  const kept = pairs.filter(([a, b]) => nodes.has(a) && nodes.has(b)).map(([a, b]) => [String(a), String(b)] as const);
  const plans: ClusterPlan[] = [];
  for (const cluster of clustersOf(kept)) {
    const members = cluster
      .map((nid) => nodes.get(Number(nid))!)
      .sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a.nid - b.nid)
      .slice(0, CLUSTER_MAX);
    if (await alreadySummarized(env, members)) continue;
    const inside = new Set(members.map((m) => m.nid));
    const sims = [...similarity.entries()].filter(([k]) => k.split('-').every((x) => inside.has(Number(x)))).map(([, s]) => s);
    const key = clusterKey(members.map((m) => m.id));
    const sampled = env.sampled[key];
    const content = sampled?.text.trim() || citedExtract(members).text;
    if (!content) continue;
    plans.push({
      key,
      members,
      minSimilarity: sims.length ? Math.min(...sims) : env.minSimilarity,
      content,
      method: sampled?.text.trim() ? 'sampling' : 'extractive',
      model: sampled?.text.trim() ? sampled.model : null,
    });
  }
  return plans;
}

/** True when one live summary already summarizes every member. */
async function alreadySummarized(env: PhaseEnv, members: readonly NodeRecord[]): Promise<boolean> {
  const rows = await summarizedBy(
    env.db,
    members.map((m) => m.id),
  );
  const covers = new Map<string, Set<string>>();
  for (const r of rows) covers.set(r.summary_id, (covers.get(r.summary_id) ?? new Set()).add(r.node_id));
  return [...covers.values()].some((s) => s.size >= members.length);
}

/** The topic a consolidated summary is stored under: its oldest member's topic, or its opening words. */
export function clusterTopic(members: readonly NodeRecord[]): string {
  const first = members[0]!;
  const head = first.topic ?? first.content.replace(/\s+/g, ' ').trim().slice(0, 60);
  return `Consolidated: ${head}`.slice(0, 256);
}
