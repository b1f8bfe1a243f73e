/**
 * Bulk loading for the large sizes, through the app's own SQL and job path (not a shortcut into
 * the indexes): nodes are inserted in batches inside one logged write transaction per batch (the
 * same columns, content hash and tx_changes images as `store`), then one `embed` job per batch
 * runs on the app's queue (same handler, same embedding pool, same embeddings feed), and the
 * index replica pulls the feed. What differs from `store`: one transaction and one job per batch
 * instead of per memory, and `created_at` can be set (temporal memories).
 *
 * PUSH HOOK: when the `push` tool / MemoryService.push lands, add a loader here that calls it
 * with the same batches (see `pushLoader` below) and select it with `--loader push`.
 */
import { ulid } from 'ulid';
import type { App } from '../src/app.js';
import { EMBED_JOB, embedJobId } from '../src/services/embedding.js';
import { contentHash } from '../src/services/writes.js';
import { image, writeTransaction } from '../src/services/writes.js';
import { NODE_COLUMNS, type NodeRecord } from '../src/store/nodes-repo.js';

export interface LoadItem {
  content: string;
  topic: string;
  tags: string[];
  created_at?: string | null;
}

export interface LoadResult {
  path: 'bulk-sql+embed-job' | 'store-loop' | 'push';
  nids: number[];
  ids: string[];
  seconds: number;
  per_s: number;
}

/** Inserts one batch of nodes in one logged transaction; returns the rows. */
export async function insertBatch(app: App, items: readonly LoadItem[], projectId: string): Promise<NodeRecord[]> {
  const { result } = await writeTransaction(app.db, 'store', { actor: 'bench-bulk-load' }, async (tx, log) => {
    const rows = await tx.query<NodeRecord & Record<string, unknown>>(
      `insert into nodes (id, kind, project_id, memory_type, topic, content, tags, source_uri,
         importance, confidence, metadata, content_hash, created_at, updated_at)
       select u.id, 'memory', $2, 'semantic', u.topic, u.content,
              array(select jsonb_array_elements_text(u.tags)), null, 0.5, 1, '{}'::jsonb, u.hash,
              coalesce(u.created_at, now()), coalesce(u.created_at, now())
         from unnest($1::text[], $3::text[], $4::text[], $5::jsonb[], $6::text[], $7::timestamptz[])
           with ordinality as u(id, topic, content, tags, hash, created_at, ord)
        order by u.ord
       returning ${NODE_COLUMNS}`,
      [
        items.map(() => ulid()),
        projectId,
        items.map((m) => m.topic),
        items.map((m) => m.content),
        items.map((m) => JSON.stringify(m.tags)),
        items.map((m) => contentHash(m.content)),
        items.map((m) => m.created_at ?? null),
      ],
    );
    for (const row of rows) log({ entity: 'node', entityId: row.id, before: null, after: image(row) });
    return rows;
  });
  return result;
}

/**
 * Bulk path: batched logged inserts + one embed job per batch on the app's queue, with up to
 * `inFlight` jobs outstanding so inserting and embedding overlap. Resolves once every vector is
 * in the index replica.
 */
export async function bulkLoad(
  app: App,
  items: readonly LoadItem[],
  opts: { projectId?: string; batch?: number; inFlight?: number; onProgress?: (done: number) => void } = {},
): Promise<LoadResult> {
  const batch = opts.batch ?? 500;
  const inFlight = opts.inFlight ?? 2;
  const start = process.hrtime.bigint();
  const nids: number[] = [];
  const ids: string[] = [];
  const pending: Array<Promise<unknown>> = [];
  for (let i = 0; i < items.length; i += batch) {
    const rows = await insertBatch(app, items.slice(i, i + batch), opts.projectId ?? 'bench');
    rows.sort((a, b) => a.nid - b.nid);
    const batchNids = rows.map((r) => r.nid);
    nids.push(...batchNids);
    ids.push(...rows.map((r) => r.id));
    const handle = await app.queue.enqueue(EMBED_JOB, { nids: batchNids }, { jobId: embedJobId(batchNids, 'bench') });
    pending.push(handle.finished(600_000));
    while (pending.length >= inFlight) await pending.shift();
    opts.onProgress?.(Math.min(items.length, i + batch));
  }
  await Promise.all(pending);
  await app.indexSync.pull();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { path: 'bulk-sql+embed-job', nids, ids, seconds: round2(seconds), per_s: round2(items.length / seconds) };
}

/** The live path, one `MemoryService.store` per memory (waits for its vectors, as in embedded mode). */
export async function storeLoop(
  app: App,
  items: readonly LoadItem[],
  opts: { projectId?: string; onProgress?: (done: number) => void; samples?: number[] } = {},
): Promise<LoadResult> {
  const start = process.hrtime.bigint();
  const nids: number[] = [];
  const ids: string[] = [];
  for (let i = 0; i < items.length; i++) {
    const m = items[i]!;
    const t0 = process.hrtime.bigint();
    const r = await app.services.memory.store({ content: m.content, topic: m.topic, tags: m.tags, project_id: opts.projectId ?? 'bench', memory_type: 'semantic' });
    opts.samples?.push(Number(process.hrtime.bigint() - t0) / 1e6);
    nids.push(r.node.nid);
    ids.push(r.node.id);
    opts.onProgress?.(i + 1);
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { path: 'store-loop', nids, ids, seconds: round2(seconds), per_s: round2(items.length / seconds) };
}

/**
 * PUSH HOOK (not wired yet): bulk ingest through the `push` tool once it exists. Replace the
 * body with a call to the push service (or an MCP `push` call) on batches of `items`, and return
 * the same LoadResult with path 'push'. run.ts reports `push: null` until then.
 */
export async function pushLoader(_app: App, _items: readonly LoadItem[]): Promise<LoadResult | null> {
  return null;
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
