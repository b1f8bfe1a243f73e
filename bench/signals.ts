/**
 * Each retrieval signal on its own, for quality and latency comparisons: the same lexical SQL as
 * SearchService (copied: it is private there) and one dense space's k-NN on the app's indexes.
 */
import type { App } from '../src/app.js';
import type { SpaceId } from '../src/embed/types.js';
import { orTsQuerySql } from '../src/store/fts.js';

/** Full-text candidates, ranked as SearchService.lexical ranks them (ts_rank over an OR query). */
export async function lexicalOnly(app: App, text: string, limit: number): Promise<number[]> {
  const rows = await app.db.query<{ nid: number }>(
    `with q as (select ${orTsQuerySql('$1')} as tsq)
     select n.nid, ts_rank(n.tsv, q.tsq) as rank
       from nodes n, q
      where n.tsv @@ q.tsq and n.deleted_at is null
      order by rank desc, n.nid
      limit $2`,
    [text, limit],
  );
  return rows.map((r) => Number(r.nid));
}

/** Nearest neighbours in one embedding space (the query embedded by the app's pool). */
export async function denseOnly(app: App, space: SpaceId, text: string, limit: number): Promise<number[]> {
  const vectors = await app.embedder.embed([text], [space]);
  const v = vectors.get(space)?.[0];
  if (!v) return [];
  return (await app.indexes.search(space, v, limit)).map((h) => h.key);
}

/** Hybrid search as the `query` tool runs it. */
export async function hybrid(app: App, text: string, limit: number): Promise<number[]> {
  return (await app.search.hybrid({ text, limit })).hits.map((h) => h.node.nid);
}
