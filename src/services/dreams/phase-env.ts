import type { Db } from '../../store/db.js';
import { liveNodesById, type NodeRecord } from '../../store/nodes-repo.js';
import { recentRetrievals, type LoggedRetrieval } from '../../store/retrieval-log-repo.js';
import type { NearestMemories } from '../navigation/nearest.js';
import { CO_RETRIEVAL_TOP_K, coRetrievals, type PairEvidence } from './evidence.js';
import type { PhaseRun } from './run.js';

/** Retrievals one phase reads at most (newest first within the window). */
export const RETRIEVALS_READ = 2_000;

/** What a phase works with: the store, the run's budget and abort checks, and the dream's settings. */
export interface PhaseEnv {
  db: Db;
  nearest: NearestMemories;
  run: PhaseRun;
  dreamId: string;
  projectId: string;
  actor: string | null;
  /** The dream's "now" (the caller's clock), so idle times and decay are measured consistently. */
  now: Date;
  /** Retrievals and memories since this instant are "recent". */
  since: Date;
  /** Co-retrievals a pair needs before a dream adds an edge between it. */
  minCoRetrievals: number;
  /** How far apart (hops) a pair may be for a shortcut to replace its path; farther counts as unconnected. */
  maxHops: number;
  /** E1 cosine at or above which two memories are near-duplicates. */
  minSimilarity: number;
  /** Automatic edges unused for this many days decay. */
  unusedDays: number;
  /** Summaries the client's model wrote, by cluster key (MCP sampling, asked by the tool). */
  sampled: Record<string, { text: string; model: string }>;
  report(step: string, done: number, total: number, counts: Record<string, number>): Promise<void>;
}

/** What the retrieval log says about the project's memories since `since`. */
export interface Evidence {
  retrievals: LoggedRetrieval[];
  /** Live memories of the project that recent retrievals returned among their first hits. */
  nodes: Map<string, NodeRecord>;
  pairs: Map<string, PairEvidence>;
}

export async function loadEvidence(env: PhaseEnv): Promise<Evidence> {
  const retrievals = await recentRetrievals(env.db, { projectId: env.projectId, since: env.since, limit: RETRIEVALS_READ });
  // Hits of other projects (a search over every project) are read past, so look a little deeper than top k.
  const ids = [...new Set(retrievals.flatMap((r) => r.hits.slice(0, CO_RETRIEVAL_TOP_K * 4).map((h) => h.id)))];
  const nodes = new Map<string, NodeRecord>();
  for (let i = 0; i < ids.length; i += 1_000) {
    for (const n of await liveNodesById(env.db, ids.slice(i, i + 1_000))) if (n.project_id === env.projectId && n.kind !== 'entity') nodes.set(n.id, n);
  }
  return { retrievals, nodes, pairs: coRetrievals(retrievals, (id) => nodes.has(id)) };
}
