import type { Embedder } from '../embed/embedder.js';
import type { SpaceId } from '../embed/types.js';
import type { VectorIndexes } from '../index/vector-index.js';
import type { Db } from '../store/db.js';
import { nodesByNid, type NodeRecord } from '../store/nodes-repo.js';
import { filteredCandidates } from './candidates.js';
import { cosine } from './metacognition/text.js';

/** The space near duplicates are judged in. */
const DUPLICATE_SPACE: SpaceId = 'E1';

export interface NearDuplicateQuery {
  projectId: string;
  collection?: string | undefined;
  excludeNid: number;
  minSimilarity: number;
  limit: number;
  /**
   * Entries of the same project and collection whose vectors are not in the index yet (stores
   * that answered first), compared one by one; they are few.
   */
  unindexed?: Iterable<{ nid: number; vector: Float32Array }>;
}

export interface NearDuplicate {
  node: NodeRecord;
  similarity: number;
}

type Deps = { db: Db; embedder: Embedder; indexes: VectorIndexes };

/** The E1 vector of a text, as near duplicates are judged (null without an E1 encoder). */
export async function duplicateVector(deps: Pick<Deps, 'embedder'>, text: string): Promise<Float32Array | null> {
  if (!deps.embedder.encoders().some((e) => e.space === DUPLICATE_SPACE)) return null;
  const [vector] = (await deps.embedder.embed([text], [DUPLICATE_SPACE])).get(DUPLICATE_SPACE) ?? [];
  return vector ?? null;
}

/**
 * Live entries of one project (and collection) whose E1 cosine to `vector` reaches
 * minSimilarity, best first: what `store` reports as possible_duplicates. Cheap (one index
 * probe), so it runs on every store.
 */
export async function nearDuplicatesOf(deps: Pick<Deps, 'db' | 'indexes'>, vector: Float32Array, opts: NearDuplicateQuery): Promise<NearDuplicate[]> {
  const space = DUPLICATE_SPACE;
  // One more than asked: the new node itself is usually its own nearest neighbour.
  const { lists } = await filteredCandidates(deps, [{ name: space, space, vector }], { projectId: opts.projectId, collection: opts.collection }, opts.limit + 1);
  const best = new Map<number, number>();
  for (const h of lists[0]!) best.set(h.key, h.similarity);
  for (const u of opts.unindexed ?? []) best.set(u.nid, Math.max(best.get(u.nid) ?? -1, cosine(vector, u.vector)));
  const hits = [...best]
    .filter(([key, similarity]) => key !== opts.excludeNid && similarity >= opts.minSimilarity)
    .sort((a, b) => b[1] - a[1])
    .slice(0, opts.limit);
  const rows = new Map(
    (
      await nodesByNid(
        deps.db,
        hits.map(([key]) => key),
      )
    ).map((n) => [n.nid, n]),
  );
  return hits.flatMap(([key, similarity]) => {
    const node = rows.get(key);
    return node && node.deleted_at === null ? [{ node, similarity }] : [];
  });
}
