import { Piscina } from 'piscina';
import type { SpaceId } from '../embed/types.js';
import type { Logger } from '../log.js';
import { workerFile } from '../paths.js';
import type { IndexOp, IndexResults, IndexTask, ReadTask } from './protocol.js';
import { resolveSpec } from './space-index.js';
import type { IndexBatch, SearchOptions, SpaceIndexSpec, VectorHit, VectorIndexes } from './vector-index.js';

/** Below this, cloning a buffer beats transferring it (stack-notes §3: 384 floats clone faster). */
const TRANSFER_MIN_BYTES = 100 * 1024;

/** Calls in flight on the index thread at once: every call goes to it as soon as it is made. */
const TASKS_IN_FLIGHT = 1_000_000;

/**
 * The indexes are state inside one worker thread, so the pool is exactly one thread that
 * never idles out. Every call is posted to it at once and the thread orders them
 * (workers/index.ts): writes one after another in call order, reads as soon as they arrive,
 * between slices of a long batch. A read sees every write whose promise resolved before the
 * read was made and no write made after it.
 *
 * No AbortSignal on these tasks: Piscina aborts a running task by terminating its thread,
 * which would throw away every index.
 */
export function createVectorIndexes(opts: { logger?: Logger } = {}): VectorIndexes {
  const logger = opts.logger;
  const pool = new Piscina({
    filename: workerFile('index'),
    minThreads: 1,
    maxThreads: 1,
    idleTimeout: Infinity,
    concurrentTasksPerWorker: TASKS_IN_FLIGHT,
    // USearch is native: resource limits on the V8 heap do not bound it, so none are set.
  });
  pool.on('error', (err: unknown) => {
    // Piscina replaces a crashed thread with a fresh one, whose indexes are empty.
    logger?.error({ err }, 'vector index thread crashed; its indexes are lost until rebuilt');
  });
  let closed = false;

  // Reads issued in one turn of this event loop (a search's candidate lists, the index sizes),
  // sent as one `reads` message when the turn's microtasks run.
  let pendingReads: Array<{ task: ReadTask; resolve: (value: unknown) => void; reject: (err: Error) => void }> = [];

  function read<K extends ReadTask['op']>(task: Extract<ReadTask, { op: K }>): Promise<IndexResults[K]> {
    if (closed) return Promise.reject(new Error('the vector indexes are closed'));
    return new Promise((resolve, reject) => {
      pendingReads.push({ task, resolve: resolve as (value: unknown) => void, reject });
      if (pendingReads.length === 1) queueMicrotask(flushReads);
    });
  }

  function flushReads(): void {
    const group = pendingReads;
    pendingReads = [];
    if (group.length === 0) return;
    if (group.length === 1) {
      const [only] = group;
      post(only!.task).then(only!.resolve, only!.reject);
      return;
    }
    post({ op: 'reads', tasks: group.map((g) => g.task) }).then(
      (outcomes) =>
        outcomes.forEach((o, i) => {
          if (o.ok) group[i]!.resolve(o.value);
          else group[i]!.reject(new Error(o.message));
        }),
      (err: Error) => group.forEach((g) => g.reject(err)),
    );
  }

  function run<K extends IndexOp>(task: Extract<IndexTask, { op: K }>, transfer?: ArrayBuffer): Promise<IndexResults[K]> {
    if (closed) return Promise.reject(new Error('the vector indexes are closed'));
    // Reads issued before this call are sent first, so they do not see it.
    flushReads();
    return post(task, transfer);
  }

  function post<K extends IndexOp>(task: Extract<IndexTask, { op: K }>, transfer?: ArrayBuffer): Promise<IndexResults[K]> {
    if (transfer && transfer.byteLength > TRANSFER_MIN_BYTES) {
      // A custom Transferable: Piscina unwraps it to the task and moves the buffer with it.
      return pool.run(Piscina.move({ [Piscina.transferableSymbol]: transfer, [Piscina.valueSymbol]: task } as never)) as Promise<IndexResults[K]>;
    }
    return pool.run(task) as Promise<IndexResults[K]>;
  }

  async function applyBatch(batch: IndexBatch): Promise<void> {
    for (const u of batch.upserts) {
      if (u.keys.length !== u.vectors.length) throw new RangeError(`upsert into ${u.space}: ${u.keys.length} keys but ${u.vectors.length} vectors`);
      checkKeys(u.keys);
    }
    for (const r of batch.removals) checkKeys(r.keys);
    const upserts = batch.upserts.filter((u) => u.keys.length > 0);
    const removals = batch.removals.filter((r) => r.keys.length > 0);
    if (upserts.length === 0 && removals.length === 0) return;
    // One buffer for every row: one message, and USearch adds a dense group in a single call.
    // Rows keep their own lengths, so the host needs no knowledge of the index kind; set()
    // copies bytes, so packed sparse term ids survive.
    const flat = concat(upserts.flatMap((u) => u.vectors));
    await run(
      {
        op: 'batch',
        removals: removals.map((r) => ({ space: r.space, keys: [...r.keys] })),
        upserts: upserts.map((u) => ({ space: u.space, keys: [...u.keys], lengths: u.vectors.map((v) => v.length) })),
        vectors: flat,
      },
      flat.buffer,
    );
  }

  return {
    async ensure(spec: SpaceIndexSpec) {
      if (!Number.isInteger(spec.dim) || spec.dim < 0) {
        throw new RangeError(`ensure ${spec.space}: dim must be a positive integer (or 0 for a sparse space), got ${spec.dim}`);
      }
      await run({ op: 'ensure', spec: resolveSpec(spec) });
    },

    upsert(space: SpaceId, keys: readonly number[], vectors: readonly Float32Array[]) {
      return applyBatch({ removals: [], upserts: [{ space, keys, vectors }] });
    },

    applyBatch,

    remove(space: SpaceId, keys: readonly number[]) {
      return applyBatch({ removals: [{ space, keys }], upserts: [] });
    },

    search(space: SpaceId, query: Float32Array, k: number, opts: SearchOptions = {}): Promise<VectorHit[]> {
      if (!opts.among) return read({ op: 'search', space, query, k });
      checkKeys(opts.among);
      return read({ op: 'search', space, query, k, among: [...opts.among] });
    },

    async termIdf(space: SpaceId, termIds: readonly number[], opts: { withReads?: boolean } = {}) {
      if (termIds.length === 0) return [];
      if (opts.withReads) return read({ op: 'idf', space, termIds: [...termIds] });
      // Sent alone: a search waits for these statistics before it embeds the query, so their
      // answer must not wait for the searches issued with them.
      return run({ op: 'idf', space, termIds: [...termIds] });
    },

    sizes(only?: readonly SpaceId[]) {
      return read(only ? { op: 'sizes', spaces: [...only] } : { op: 'sizes' });
    },

    async saveSnapshot(dir: string, feedSeq: number) {
      await run({ op: 'save', dir, feedSeq });
      logger?.info({ dir, feedSeq }, 'vector index snapshot saved');
    },

    async loadSnapshot(dir: string, specs: readonly SpaceIndexSpec[]) {
      const result = await run({ op: 'load', dir, specs: specs.map(resolveSpec) });
      logger?.info(result, 'vector index snapshot loaded');
      return result.feedSeq;
    },

    async close() {
      if (closed) return;
      await run({ op: 'close' }).catch((err) => logger?.warn({ err }, 'vector index close failed'));
      closed = true;
      await pool.close();
    },
  };
}

function concat(vectors: readonly Float32Array[]): Float32Array<ArrayBuffer> {
  const flat = new Float32Array(vectors.reduce((a, v) => a + v.length, 0));
  let o = 0;
  for (const v of vectors) {
    flat.set(v, o);
    o += v.length;
  }
  return flat;
}

function checkKeys(keys: readonly number[]): void {
  for (const key of keys) {
    if (!Number.isSafeInteger(key) || key < 0) throw new RangeError(`vector keys must be non-negative safe integers (nodes.nid), got ${key}`);
  }
}
