/**
 * Piscina entry for the vector indexes: one index per embedding space, of the kind the space
 * declares (src/index/kinds/: USearch HNSW for dense spaces, BM25 for sparse ones), held in
 * this thread's module state. Every call is synchronous CPU work, so they run here, off the
 * main event loop; the host runs exactly one such thread and sends every call through it as
 * soon as it is made (many tasks share the thread).
 *
 * Writes (ensure, batch, save, load, close) run one after another in the order they arrive. A
 * read (search, idf, sizes) runs as soon as its message arrives: a batch yields to the thread's
 * messages between slices of rows once it has run for a slice's time, so a search waits for at
 * most one slice of HNSW adds, not for the whole batch (at 100k memories one store's 13-space
 * batch took ~7 ms, and the next store's duplicate probe waited behind it). A read therefore
 * sees every write answered before it was asked and none asked after it; of a write in flight
 * it may see a part. Until an ensure has finished, reads wait for it: they would find a space
 * missing or empty. A load makes a read wait only for the read's own spaces: it loads them in
 * the order asked (the host puts the spaces default search uses first) and lets the reads of a
 * loaded space run between spaces.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SpaceId } from '../src/embed/types.js';
import { indexKind } from '../src/index/kinds/registry.js';
import { SNAPSHOT_FORMAT, type IndexResults, type IndexTask, type LoadResult, type ReadOutcome, type ReadTask, type SnapshotMeta } from '../src/index/protocol.js';
import type { ResolvedSpec, SavedSpace, SpaceIndex } from '../src/index/space-index.js';
import type { VectorHit } from '../src/index/vector-index.js';

const META_FILE = 'meta.json';

const spaces = new Map<SpaceId, SpaceIndex>();

function need(space: SpaceId): SpaceIndex {
  const index = spaces.get(space);
  if (!index) throw new Error(`no index for space ${space}: call ensure() first`);
  return index;
}

function ensure(spec: ResolvedSpec): void {
  const current = spaces.get(spec.space)?.spec;
  if (current && current.dim === spec.dim && current.modelId === spec.modelId && current.index === spec.index) return;
  // A new dim, model or kind makes every stored vector incomparable: start empty.
  spaces.set(spec.space, indexKind(spec.index).create({ ...spec }));
}

function search(space: SpaceId, query: Float32Array, k: number, among?: number[]): VectorHit[] {
  return spaces.get(space)?.search(query, k, among) ?? [];
}

function sizes(only?: readonly SpaceId[]): Partial<Record<SpaceId, number>> {
  const out: Partial<Record<SpaceId, number>> = {};
  for (const [space, index] of spaces) if (!only || only.includes(space)) out[space] = index.size();
  return out;
}

/**
 * Index files first, meta.json last, each written to a temp name and renamed, so a crash
 * mid-save leaves whole files. If it stops between an index file and meta.json, that file is
 * newer than meta's feedSeq; replaying the feed from there re-applies idempotent upserts and
 * removes, so the index converges all the same.
 */
async function save(dir: string, feedSeq: number): Promise<void> {
  await mkdir(dir, { recursive: true });
  const meta: SnapshotMeta = { version: SNAPSHOT_FORMAT, feedSeq, savedAt: new Date().toISOString(), spaces: [] };
  for (const index of spaces.values()) meta.spaces.push(await index.save(dir));
  const metaPath = join(dir, META_FILE);
  await writeFile(`${metaPath}.tmp`, JSON.stringify(meta, null, 2) + '\n');
  await rename(`${metaPath}.tmp`, metaPath);
}

async function readMeta(dir: string): Promise<SnapshotMeta | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, META_FILE), 'utf8')) as SnapshotMeta;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    return undefined;
  }
}

/** Spaces a load asked for and has not reached yet: a read of one waits for it, not for the snapshot. */
const spaceLoads = new Map<SpaceId, Promise<void>>();

/** Registers the load's spaces as they arrive; each is released once loaded (or started empty), all of them when the load ends. */
function announceLoad(specs: readonly ResolvedSpec[]): { loaded: (space: SpaceId) => void; end: () => void } {
  const release = new Map<SpaceId, () => void>();
  for (const spec of specs) {
    const done: Promise<void> = new Promise<void>((resolve) => release.set(spec.space, resolve)).finally(() => {
      if (spaceLoads.get(spec.space) === done) spaceLoads.delete(spec.space);
    });
    spaceLoads.set(spec.space, done);
  }
  return {
    loaded: (space) => release.get(space)?.(),
    end: () => release.forEach((resolve) => resolve()),
  };
}

/** The spaces a read reads; undefined stands for every space. */
const spacesRead = (task: ReadTask): (SpaceId | undefined)[] => (task.op === 'sizes' ? (task.spaces ?? [undefined]) : [task.space]);

/** What a read must wait for: an ensure in flight, and the loads of the spaces it reads. */
function readable(wanted: readonly (SpaceId | undefined)[]): Promise<unknown> | null {
  const waits: Promise<unknown>[] = barriers > 0 ? [barrier] : [];
  for (const space of wanted) {
    if (space === undefined) waits.push(...spaceLoads.values());
    else {
      const loading = spaceLoads.get(space);
      if (loading) waits.push(loading);
    }
  }
  return waits.length > 0 ? Promise.all(waits) : null;
}

async function load(dir: string, specs: ResolvedSpec[], progress: { loaded: (space: SpaceId) => void }): Promise<LoadResult> {
  const result: LoadResult = { feedSeq: 0, loaded: [], skipped: [] };
  const meta = await readMeta(dir);
  for (const spec of specs) {
    // The reads waiting for the space before run now, before the next space loads.
    if (result.loaded.length + result.skipped.length > 0) await yieldToReads();
    const entry = meta?.spaces.find((s) => s.space === spec.space);
    // Format 1 did not record the kind: dim 0 was the sparse space.
    const saved: SavedSpace | undefined = entry && { ...entry, index: entry.index ?? (entry.dim === 0 ? 'sparse' : 'dense') };
    let reason: string;
    if (!meta) reason = 'no snapshot';
    else if (meta.version > SNAPSHOT_FORMAT) reason = `snapshot format ${meta.version} is newer than this server's (${SNAPSHOT_FORMAT})`;
    else if (!saved) reason = 'not in the snapshot';
    else if (saved.dim !== spec.dim || saved.modelId !== spec.modelId || saved.index !== spec.index) {
      reason = `snapshot has ${saved.index} ${saved.modelId}/${saved.dim}`;
    } else {
      try {
        spaces.set(spec.space, await indexKind(spec.index).load(dir, { ...spec }, saved));
        result.loaded.push(spec.space);
        progress.loaded(spec.space);
        continue;
      } catch (err) {
        reason = (err as Error).message;
      }
    }
    // Whatever was not loaded starts empty, ready for the caller to replay the feed into it.
    spaces.set(spec.space, indexKind(spec.index).create({ ...spec }));
    result.skipped.push({ space: spec.space, reason });
    progress.loaded(spec.space);
  }
  // A partial load still needs the whole feed for the empty spaces; replay is idempotent.
  if (meta && result.skipped.length === 0 && specs.length > 0) result.feedSeq = meta.feedSeq;
  return result;
}

/** How long a batch runs before it lets the reads that arrived meanwhile go. */
const SLICE_MS = 2;
/** Rows of one upsert call at most: a cheap space's slice stays a bounded allocation. */
const MAX_SLICE_ROWS = 512;

/** One turn of this thread's event loop: messages that arrived meanwhile are handled (their reads run). */
const yieldToReads = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Applies the batch in slices of rows sized to take about SLICE_MS each (an HNSW add at 100k
 * memories costs 0.3-1.3 ms a row depending on the space, a sparse upsert microseconds),
 * letting waiting reads run whenever SLICE_MS has passed since they last could.
 */
async function batch(task: Extract<IndexTask, { op: 'batch' }>): Promise<void> {
  for (const r of task.removals) spaces.get(r.space)?.remove(r.keys);
  let offset = 0;
  let since = performance.now();
  for (const u of task.upserts) {
    const index = need(u.space);
    let rows = 1;
    for (let from = 0; from < u.keys.length;) {
      const lengths = u.lengths.slice(from, from + rows);
      const floats = lengths.reduce((a, b) => a + b, 0);
      const started = performance.now();
      index.upsert(u.keys.slice(from, from + rows), task.vectors.subarray(offset, offset + floats), lengths);
      const now = performance.now();
      from += lengths.length;
      offset += floats;
      rows = Math.max(1, Math.min(MAX_SLICE_ROWS, Math.floor((lengths.length * SLICE_MS) / Math.max(now - started, 0.01))));
      if (now - since >= SLICE_MS) {
        await yieldToReads();
        since = performance.now();
      }
    }
  }
}

/** The last write asked for: the next one starts after it, whatever its outcome. */
let writes: Promise<unknown> = Promise.resolve();
/** Ensures not finished yet, and the end of the last of them: reads wait for it. */
let barriers = 0;
let barrier: Promise<unknown> = Promise.resolve();

function inTurn<T>(work: () => T | Promise<T>, opts: { barrier?: boolean } = {}): Promise<T> {
  const done = writes.then(work);
  writes = done.catch(() => undefined);
  if (opts.barrier) {
    barriers++;
    barrier = writes.finally(() => barriers--);
  }
  return done;
}

function read(task: ReadTask): IndexResults[ReadTask['op']] {
  switch (task.op) {
    case 'search':
      return search(task.space, task.query, task.k, task.among);
    case 'idf':
      return spaces.get(task.space)?.idf?.(task.termIds) ?? task.termIds.map(() => 0);
    case 'sizes':
      return sizes(task.spaces);
  }
}

/** One read of a `reads` message: its failure is its own. */
function outcome(task: ReadTask): ReadOutcome {
  try {
    return { ok: true, value: read(task) };
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}

export default async function handle(task: IndexTask): Promise<IndexResults[IndexTask['op']]> {
  switch (task.op) {
    case 'search':
    case 'idf':
    case 'sizes': {
      const wait = readable(spacesRead(task));
      if (wait) await wait;
      return read(task);
    }
    case 'reads': {
      const wait = readable(task.tasks.flatMap(spacesRead));
      if (wait) await wait;
      return task.tasks.map(outcome);
    }
    case 'ensure':
      return inTurn(() => ensure(task.spec), { barrier: true });
    case 'load': {
      const progress = announceLoad(task.specs);
      const loading = inTurn(() => load(task.dir, task.specs, progress));
      void loading.finally(progress.end).catch(() => undefined);
      return loading;
    }
    case 'batch':
      return inTurn(() => batch(task));
    case 'save':
      return inTurn(() => save(task.dir, task.feedSeq));
    case 'close':
      return inTurn(() => spaces.clear());
  }
}
