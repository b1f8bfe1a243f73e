/**
 * Bulk loading for the large sizes, through the app's own write path (not a shortcut into the
 * indexes): `bulkLoad` is the embedded import (what `context-graph import` does, ~1,000
 * memories/s written and ~550/s searchable on 2 cores, so 100k loads in a few minutes);
 * `insertBatch` is the older batched logged insert kept for parts that set their own columns.
 * `pushLoader` measures the `push` tool's path (IngestService.push) on a store of its own.
 */
import { monotonicFactory, ulid } from 'ulid';
import type { App } from '../src/app.js';
import { tempDir } from '../test/helpers/cli.js';
import { openBenchApp } from './app.js';
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
  path: 'import-pipelined' | 'bulk-sql+embed-job' | 'store-loop' | 'push';
  nids: number[];
  ids: string[];
  seconds: number;
  per_s: number;
}

/** What a report keeps of a load: its rate, not its ids. */
export type LoadRate = Omit<LoadResult, 'nids' | 'ids'> & { count: number };

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
 * Bulk path: the embedded import (`context-graph import`: ImportService.importBatch, pipelined),
 * batches of `batch` records in one logged transaction each, embed jobs queued on the app's own
 * queue and run a few jobs behind the writes; resolves once every memory is searchable (no
 * embedding debt left, index replica caught up: the rate reported) and the deferred fingerprint
 * jobs are done, so nothing of the load runs under the timings that follow. Ids are given (monotonic ULIDs), so
 * the import's dedup is a primary-key probe and the caller gets the ids in corpus order.
 */
export async function bulkLoad(
  app: App,
  items: readonly LoadItem[],
  opts: { projectId?: string; batch?: number; inFlight?: number; onProgress?: (done: number) => void } = {},
): Promise<LoadResult> {
  const batch = opts.batch ?? 1000;
  const projectId = opts.projectId ?? 'bench';
  const start = process.hrtime.bigint();
  const nextId = monotonicFactory();
  const ids = items.map(() => nextId());
  for (let i = 0; i < items.length; i += batch) {
    const records = items.slice(i, i + batch).map((m, j) => ({
      type: 'memory',
      id: ids[i + j],
      project_id: projectId,
      memory_type: 'semantic',
      topic: m.topic,
      content: m.content,
      tags: m.tags,
      ...(m.created_at ? { created_at: m.created_at, updated_at: m.created_at } : {}),
    }));
    const r = await app.services.bulkImport.importBatch(records, { actor: 'bench-bulk-load', pipelined: true });
    if (r.rejected > 0) throw new Error(`bulk load: ${r.rejected} records refused: ${JSON.stringify(r.rejections.slice(0, 3))}`);
    opts.onProgress?.(Math.min(items.length, i + batch));
  }
  await settleEmbedding(app);
  // The rate is to "searchable" (what the old path measured: written, embedded, in the index);
  // the deferred fingerprints are then waited for outside it, so they never run under a timing.
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  await app.services.bulkImport.scheduleDeferredFingerprints();
  for (;;) {
    const c = await app.queue.counts();
    if (c.waiting + c.active === 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const nidOf = new Map<string, number>();
  for (let i = 0; i < ids.length; i += 10_000) {
    const rows = await app.db.query<{ id: string; nid: number }>('select id, nid from nodes where id = any($1::text[])', [ids.slice(i, i + 10_000)]);
    for (const r of rows) nidOf.set(r.id, Number(r.nid));
  }
  const nids = ids.map((id) => nidOf.get(id)!);
  return { path: 'import-pipelined', nids, ids, seconds: round2(seconds), per_s: round2(items.length / seconds) };
}

/** The live path, one `MemoryService.store` per memory (each answers once committed; the loop's rate counts until the last one's vectors are in). */
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
  // A store answers before its vectors: the rate is to searchable, so the last ones are waited for.
  await app.services.pendingVectors.settled();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { path: 'store-loop', nids, ids, seconds: round2(seconds), per_s: round2(items.length / seconds) };
}

/** Items per pushed document, and the chunk size that makes each corpus sentence (16–24 tokens) a chunk of its own. */
const PUSH_DOCUMENT_ITEMS = 100;
const PUSH_CHUNK_TOKENS = 24;

/**
 * The `push` path (seed 004, IngestService.push, what the `push` tool calls): the items as
 * documents of 100 sentences, each sentence one chunk, pushed one after the other into a fresh
 * store of its own, so the chunks never join the store the other figures are measured on. The
 * rate is to searchable, as for `bulkLoad`: every chunk written, embedded and in the index.
 */
export async function pushLoader(items: readonly LoadItem[], opts: { projectId?: string } = {}): Promise<LoadRate> {
  const dir = await tempDir('cg-bench-push-');
  const app = await openBenchApp(dir.path);
  try {
    const start = process.hrtime.bigint();
    for (let i = 0; i < items.length; i += PUSH_DOCUMENT_ITEMS) {
      const document = items.slice(i, i + PUSH_DOCUMENT_ITEMS);
      const r = await app.services.ingest.push(
        { text: document.map((m) => m.content).join('\n'), project_id: opts.projectId ?? 'bench', memory_type: 'semantic', tags: [], chunk_size: PUSH_CHUNK_TOKENS },
        'bench-push',
      );
      if (r.inserted.length !== document.length) throw new Error(`push: ${document.length} sentences became ${r.inserted.length} new chunks`);
    }
    await settleEmbedding(app);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    return { path: 'push', count: items.length, seconds: round2(seconds), per_s: round2(items.length / seconds) };
  } finally {
    await app.close();
    await dir.remove();
  }
}

/** Resolves once nothing waits for embedding and the index replica has caught up. */
async function settleEmbedding(app: App): Promise<void> {
  for (;;) {
    const [row] = await app.db.query<{ n: number }>('select count(*)::int as n from embedding_outbox');
    if (!row || row.n === 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  await app.indexSync.pull();
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
