import type { IndexSync } from '../../index/sync.js';
import type { VectorIndexes } from '../../index/vector-index.js';
import type { Db } from '../../store/db.js';
import { vectorsOfProjectPage } from '../../store/navigation-repo.js';
import { filteredCandidates } from '../candidates.js';

/** The space automatic Semantic and Causal edges compare meaning in. */
export const LINK_SPACE = 'E1' as const;

/** Nearest live memories (not entities) of a project to a vector in the E1 space, best first. */
export interface NearestMemories {
  nearest(projectId: string, vector: Float32Array, k: number): Promise<Array<{ nid: number; similarity: number }>>;
}

/**
 * Through this process's E1 index (a front end consuming jobs in embedded mode), after pulling
 * the vectors committed so far so a memory written a moment ago is a candidate.
 */
export function indexedNearest(deps: { db: Db; indexes: VectorIndexes; indexSync: Pick<IndexSync, 'pull'> | null }): NearestMemories {
  return {
    async nearest(projectId, vector, k) {
      await deps.indexSync?.pull();
      const { lists } = await filteredCandidates(deps, [{ name: LINK_SPACE, space: LINK_SPACE, vector }], { projectId, excludeKinds: ['entity'] }, k);
      return (lists[0] ?? []).map((h) => ({ nid: h.key, similarity: h.similarity }));
    },
  };
}

/**
 * An exact scan of the project's stored E1 vectors: for `context-graph worker`, which holds no
 * index replicas. Cost grows with the project; the index path is the one to scale.
 */
export function scannedNearest(db: Db, page = 5_000): NearestMemories {
  return {
    async nearest(projectId, vector, k) {
      const best: Array<{ nid: number; similarity: number }> = [];
      const qn = Math.hypot(...vector) || 1;
      let after = 0;
      for (;;) {
        const rows = await vectorsOfProjectPage(db, LINK_SPACE, projectId, after, page);
        for (const r of rows) {
          let dot = 0;
          let nn = 0;
          for (let i = 0; i < vector.length; i++) {
            dot += vector[i]! * (r.vector[i] ?? 0);
            nn += (r.vector[i] ?? 0) ** 2;
          }
          best.push({ nid: r.nid, similarity: dot / (qn * (Math.sqrt(nn) || 1)) });
        }
        best.sort((a, b) => b.similarity - a.similarity).splice(k);
        if (rows.length < page) break;
        after = rows[rows.length - 1]!.nid;
      }
      return best;
    },
  };
}
