import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from './db.js';
import { encodeVector } from './vector-bytes.js';

export interface EmbeddingWrite {
  nid: number;
  space: string;
  modelId: string;
  vector: Float32Array;
  /** A dense space's vector (a fixed dim): stored in the grid layout when it is on one (src/store/vector-bytes.ts). */
  dense?: boolean;
}

export interface FeedRow {
  node_nid: number;
  space: string;
  model_id: string;
  dim: number;
  vector: Uint8Array | null;
  feed_seq: number;
  /** The vector was retracted (its node deleted); absent from older readers' rows. */
  removed?: boolean;
}

/** Channel front ends LISTEN on to pull new vectors into their index replicas. */
export const EMBEDDINGS_CHANNEL = 'cg_embeddings';

// Held while writing vectors so feed_seq order equals commit order: without it a reader could
// see seq 11 committed before seq 10 and skip 10 for ever.
const FEED_WRITE_LOCK = 0x63670001;

/** A vector this process wrote, at the feed position it took: the feed row an index replica of the same process would read back. */
export interface WrittenVector {
  feedSeq: number;
  nid: number;
  space: string;
  modelId: string;
  vector: Float32Array;
}

/**
 * Listeners of committed vector writes per Db object (in-process only): an index replica of the
 * same process takes the vectors from here instead of reading the bytes back from the feed.
 * The feed stays the source of truth (positions, models, removals); this only saves the read.
 */
const written = new WeakMap<object, Set<(rows: readonly WrittenVector[]) => void>>();

/**
 * The payload of the notifications a Db object's writes send when its own listeners take the
 * vectors (`onVectorsWritten`): its replica skips them, since the vectors reach it without a feed
 * read, while every other replica reads the feed as for any notification.
 */
const origins = new WeakMap<object, string>();

export function notificationOrigin(db: Db): string {
  let origin = origins.get(db);
  if (!origin) origins.set(db, (origin = randomUUID()));
  return origin;
}

export function onVectorsWritten(db: Db, listener: (rows: readonly WrittenVector[]) => void): () => void {
  const set = written.get(db) ?? new Set();
  written.set(db, set);
  set.add(listener);
  return () => set.delete(listener);
}

/**
 * Upserts vectors (idempotent: the same write twice leaves the same rows) and notifies replicas.
 * `alsoInTx`: more statements that commit with the vectors (the embed job settles its debts there).
 * Answers the feed position of the last vector written (0 when none), which a replica has
 * applied the write once its position reaches (`IndexSync.reach`).
 */
export async function writeEmbeddings(db: Db, writes: readonly EmbeddingWrite[], alsoInTx?: (tx: Queryable) => Promise<void>): Promise<number> {
  if (writes.length === 0) {
    if (alsoInTx) await db.transaction(alsoInTx);
    return 0;
  }
  const listeners = written.get(db);
  const primed = Boolean(listeners?.size);
  // The vectors travel as one bytea parameter sliced per row: PGlite sends a Uint8Array as binary,
  // where hex text per vector cost more main-thread time (encoding, UTF-8 sizing, decoding) than
  // the rest of the statement. Spaces and models go as small lists indexed per row.
  const rows = await db.transaction(async (tx) => {
    await tx.query(`select pg_advisory_xact_lock($1)`, [FEED_WRITE_LOCK]);
    const rows = await upsertVectors(tx, writes);
    await alsoInTx?.(tx);
    await tx.query(`select pg_notify($1, $2)`, [EMBEDDINGS_CHANNEL, primed ? notificationOrigin(db) : '']);
    return rows;
  });
  const lastSeq = rows.reduce((max, r) => Math.max(max, Number(r.feed_seq)), 0);
  // The live set again, not `primed`: a replica that started listening during the write takes its vectors too.
  if (!listeners?.size || rows.length === 0) return lastSeq;
  // A key written twice in one call keeps the last vector, as the upsert did.
  const writeOf = new Map(writes.map((w) => [`${w.nid}|${w.space}`, w]));
  const out = rows.map((r) => {
    const w = writeOf.get(`${Number(r.node_nid)}|${r.space}`)!;
    return { feedSeq: Number(r.feed_seq), nid: w.nid, space: w.space, modelId: w.modelId, vector: w.vector };
  });
  for (const listener of listeners) listener(out);
  return lastSeq;
}

/**
 * The upsert itself; the caller holds FEED_WRITE_LOCK and notifies. A rewrite takes the position
 * its proposed row already drew (`excluded.feed_seq`), not a second one: positions stay dense, so
 * a replica applying its own rewrites from memory sees no gap that would send it to the feed.
 */
async function upsertVectors(tx: Queryable, writes: readonly EmbeddingWrite[]): Promise<Array<{ node_nid: number; space: string; feed_seq: number }>> {
  const spaces = [...new Set(writes.map((w) => w.space))];
  const models = [...new Set(writes.map((w) => w.modelId))];
  const stored = writes.map((w) => encodeVector(w.vector, w.dense ?? false));
  const blob = new Uint8Array(stored.reduce((n, b) => n + b.byteLength, 0));
  const offsets: number[] = [];
  let at = 0;
  for (const bytes of stored) {
    blob.set(bytes, at);
    offsets.push(at + 1);
    at += bytes.byteLength;
  }
  // The positions come back as one row of arrays: PGlite parses each result row in JavaScript,
  // and an embed job of 500 nodes writes 6,500 vectors.
  const [row] = await tx.query<{ nids: Array<number | string> | null; spaces: string[] | null; seqs: Array<number | string> | null }>(
    `with written as (
     insert into embeddings (node_nid, space, model_id, dim, vector)
     select w.nid, ($5::text[])[w.s], ($6::text[])[w.m], w.dim, substring($7::bytea from w.off for w.len)
       from unnest($1::bigint[], $2::int[], $3::int[], $4::int[], $8::int[], $9::int[]) as w(nid, s, m, dim, off, len)
     on conflict (node_nid, space) do update
       set model_id = excluded.model_id, dim = excluded.dim, vector = excluded.vector,
           feed_seq = excluded.feed_seq, updated_at = now()
     returning node_nid, space, feed_seq)
     select array_agg(node_nid) as nids, array_agg(space) as spaces, array_agg(feed_seq) as seqs from written`,
    [
      writes.map((w) => w.nid),
      writes.map((w) => spaces.indexOf(w.space) + 1),
      writes.map((w) => models.indexOf(w.modelId) + 1),
      writes.map((w) => w.vector.length),
      spaces,
      models,
      blob,
      offsets,
      stored.map((b) => b.byteLength),
    ],
  );
  const seqs = row?.seqs ?? [];
  const written = row?.spaces ?? [];
  return (row?.nids ?? []).map((nid, i) => ({ node_nid: Number(nid), space: written[i]!, feed_seq: Number(seqs[i]) }));
}

/**
 * The feed after `afterSeq`. Rows at a position in `known` (vectors this process wrote and
 * still holds) come without their bytes (`vector` null, `removed` false); `removed` marks a
 * retracted vector.
 */
export async function readFeed(q: Queryable, afterSeq: number, limit: number, known: readonly number[] = []): Promise<FeedRow[]> {
  return q.query<FeedRow & Record<string, unknown>>(
    `select e.node_nid, e.space, e.model_id, e.dim, e.feed_seq, e.vector is null as removed,
            case when k.seq is null then e.vector end as vector
       from (select * from embeddings where feed_seq > $1 order by feed_seq limit $2) e
       left join unnest($3::bigint[]) as k(seq) on k.seq = e.feed_seq
      order by e.feed_seq`,
    [afterSeq, limit, known],
  );
}

/**
 * Marks the vectors of nodes that were deleted (or un-created by an undo) as removed: the rows
 * stay as feed entries with a null vector, so every index replica drops the keys. The bytes of
 * a node that owes no embedding (no outbox row: its vectors match its text) are kept in
 * `retained_embeddings` (db/150), so a restore puts them back without embedding again; a node
 * that owes one keeps nothing (and loses what an earlier retraction kept), so it is re-embedded.
 * `alsoWrite` upserts vectors under the same lock and notification (they reach the replicas
 * through the feed: nothing is primed).
 */
export async function retractEmbeddings(tx: Queryable, nids: readonly number[], alsoWrite: readonly EmbeddingWrite[] = []): Promise<void> {
  if (nids.length === 0 && alsoWrite.length === 0) return;
  await tx.query(`select pg_advisory_xact_lock($1)`, [FEED_WRITE_LOCK]);
  // Vectors written in the same transaction (a merged node's keyword vector): one lock, one notification.
  if (alsoWrite.length > 0) await upsertVectors(tx, alsoWrite);
  // One snapshot for every part: the copy reads the vectors before the update nulls them.
  if (nids.length > 0) {
    await tx.query(
      `with kept as (
       insert into retained_embeddings (node_nid, space, model_id, dim, vector)
       select e.node_nid, e.space, e.model_id, e.dim, e.vector from embeddings e
        where e.node_nid = any($1::bigint[]) and e.vector is not null
          and not exists (select 1 from embedding_outbox o where o.nid = e.node_nid)
       on conflict (node_nid, space) do update
         set model_id = excluded.model_id, dim = excluded.dim, vector = excluded.vector, retained_at = now()
     ), stale as (
       delete from retained_embeddings r
        where r.node_nid = any($1::bigint[]) and exists (select 1 from embedding_outbox o where o.nid = r.node_nid)
     )
     update embeddings set vector = null, feed_seq = nextval('embedding_feed_seq'), updated_at = now()
      where node_nid = any($1::bigint[]) and vector is not null`,
      [nids],
    );
  }
  await tx.query(`select pg_notify($1, '')`, [EMBEDDINGS_CHANNEL]);
}

/**
 * Puts back the kept vectors of restored nodes (`reuse`) as new feed entries, so every index
 * replica re-adds the keys, and settles their outbox row (the restore's own trigger wrote one):
 * nothing is embedded again. A node is reused only when what was kept covers every active
 * space with its active model (`active`, space → model id; empty: whatever was kept); the others,
 * and the nodes in `drop` (restored with other text), lose what was kept and are the caller's to
 * re-embed. Answers the reused nids.
 */
export async function restoreRetainedEmbeddings(
  tx: Queryable,
  reuse: readonly number[],
  drop: readonly number[],
  active: ReadonlyMap<string, string> = new Map(),
): Promise<number[]> {
  if (reuse.length === 0) {
    if (drop.length > 0) await tx.query(`delete from retained_embeddings where node_nid = any($1::bigint[])`, [drop]);
    return [];
  }
  await tx.query(`select pg_advisory_xact_lock($1)`, [FEED_WRITE_LOCK]);
  const rows = await tx.query<{ node_nid: number }>(
    `with ok as (
       select r.node_nid from retained_embeddings r
         left join unnest($3::text[], $4::text[]) as w(space, model_id) on w.space = r.space and w.model_id = r.model_id
        where r.node_nid = any($1::bigint[])
        group by r.node_nid
       having cardinality($3::text[]) = 0 or count(w.space) = cardinality($3::text[])
     ), taken as (
       delete from retained_embeddings r using ok where r.node_nid = ok.node_nid
       returning r.node_nid, r.space, r.model_id, r.dim, r.vector
     ), put as (
       update embeddings e set model_id = t.model_id, dim = t.dim, vector = t.vector,
              feed_seq = nextval('embedding_feed_seq'), updated_at = now()
         from taken t where e.node_nid = t.node_nid and e.space = t.space and e.vector is null
     ), settled as (
       delete from embedding_outbox o using ok where o.nid = ok.node_nid
     ), dropped as (
       delete from retained_embeddings r
        where (r.node_nid = any($2::bigint[]) or r.node_nid = any($1::bigint[])) and not exists (select 1 from ok where ok.node_nid = r.node_nid)
     )
     select node_nid from ok`,
    [reuse, drop, [...active.keys()], [...active.values()]],
  );
  if (rows.length > 0) await tx.query(`select pg_notify($1, '')`, [EMBEDDINGS_CHANNEL]);
  return rows.map((r) => Number(r.node_nid));
}

/** Drops kept vectors older than `before` (the start of the recovery window): those nodes can no longer be restored. */
export async function sweepRetainedEmbeddings(q: Queryable, before: Date): Promise<number> {
  const rows = await q.query(`delete from retained_embeddings where retained_at < $1 returning 1`, [before]);
  return rows.length;
}
