/**
 * A typed graph over bulk-loaded memories for the navigation latency runs, written in one
 * logged transaction per kind through the app's own write path (so sizes and indexes are those
 * a real graph of that size has). Deterministic for a seed.
 */
import { ulid } from 'ulid';
import type { App } from '../src/app.js';
import { writeTransaction } from '../src/services/writes.js';
import { mulberry32 } from './corpus.js';

const SESSION = 50;
const SEMANTIC = 3;
const CAUSAL_P = 0.3;
const HIERARCHY = 2_000;
const TOPICS = 40;

export async function layGraph(app: App, ids: readonly string[], seed: number): Promise<Record<string, number>> {
  const rand = mulberry32(seed ^ 0x5eed);
  const rows: Array<[string, string, string, string, number]> = [];
  for (let i = 0; i < ids.length; i++) {
    if ((i + 1) % SESSION !== 0 && i + 1 < ids.length) rows.push([ids[i]!, ids[i + 1]!, 'Temporal', 'followed_by', 1]);
    for (let k = 0; k < SEMANTIC; k++) rows.push([ids[i]!, ids[Math.floor(rand() * ids.length)]!, 'Semantic', 'similar_to', 0.85 + rand() * 0.15]);
    if (rand() < CAUSAL_P) rows.push([ids[i]!, ids[Math.min(ids.length - 1, i + 1 + Math.floor(rand() * 200))]!, 'Causal', 'causes', 0.6 + rand() * 0.4]);
  }
  // A topic hierarchy over the first memories: memory → topic → root, entity nodes for the topics.
  const topicIds = Array.from({ length: TOPICS }, () => ulid());
  const root = ulid();
  await app.db.query(
    `insert into nodes (id, kind, project_id, content, content_hash, topic) select t.id, 'entity', 'nav', t.name, md5(t.name), t.name
       from unnest($1::text[], $2::text[]) as t(id, name)`,
    [
      [...topicIds, root],
      [...topicIds.map((_, i) => `topic ${i}`), 'all topics'],
    ],
  );
  for (let i = 0; i < Math.min(HIERARCHY, ids.length); i++) rows.push([ids[i]!, topicIds[i % TOPICS]!, 'Hierarchical', 'in_topic', 1]);
  for (const t of topicIds) rows.push([t, root, 'Hierarchical', 'is_a', 1]);
  const counts: Record<string, number> = {};
  for (let i = 0; i < rows.length; i += 20_000) {
    const chunk = rows.slice(i, i + 20_000).filter(([s, d]) => s !== d);
    await writeTransaction(app.db, 'bench-graph', { actor: 'bench-navigation' }, async (tx, log) => {
      await tx.query(
        `insert into edges (id, src, dst, edge_type, predicate, weight, confidence, metadata)
         select u.id, u.src, u.dst, u.t, u.p, u.w, u.w, '{"method":"bench"}'::jsonb
           from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::real[]) as u(id, src, dst, t, p, w)`,
        [chunk.map(() => ulid()), chunk.map((r) => r[0]), chunk.map((r) => r[1]), chunk.map((r) => r[2]), chunk.map((r) => r[3]), chunk.map((r) => r[4])],
      );
      // One summary change per chunk: the log records the bulk write without 100k images.
      log({ entity: 'edge', entityId: `bench-${i}`, before: null, after: { edges: chunk.length } });
    });
    for (const r of chunk) counts[r[2]] = (counts[r[2]] ?? 0) + 1;
  }
  return counts;
}
