/**
 * Piscina entry for the vector indexes: one USearch index per dense embedding space and one
 * BM25 inverted index (src/index/sparse.ts) per sparse space (spec dim 0: E13), held in this
 * thread's module state. Every call is synchronous CPU work, so they run here, off the main
 * event loop; the host runs exactly one such thread and sends every call through it.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Index, MetricKind, ScalarKind } from 'usearch';
import type { SpaceId } from '../src/embed/types.js';
import { unpackTerms } from '../src/embed/keyword.js';
import { SparseIndex } from '../src/index/sparse.js';
import type { IndexResults, IndexTask, LoadResult, SnapshotMeta } from '../src/index/protocol.js';
import { isSparseSpec, type SpaceIndexSpec, type VectorHit } from '../src/index/vector-index.js';

// Settings from the stack check (research/stack-notes.md §4, 100k × 384-d, low-rank data like
// real embeddings): connectivity 16 + expansion_add 128 build the graph; expansion_search 128
// gave recall@10 0.96 (64 gave 0.87, 256 gave 0.99 at half the QPS). f16 kept f32's recall at
// about half the memory; i8 lost recall on clustered data.
const METRIC = MetricKind.Cos;
const QUANTIZATION = ScalarKind.F16;
const CONNECTIVITY = 16;
const EXPANSION_ADD = 128;
const EXPANSION_SEARCH = 128;
/**
 * Threads for a batch add. Kept the same for every add: the binding sizes its per-thread
 * contexts when it reserves capacity, so mixing thread counts would leave too few.
 */
const ADD_THREADS = Math.max(1, Math.min(4, availableParallelism()));
/** A single query gains nothing from more threads. */
const SEARCH_THREADS = 1;
const META_FILE = 'meta.json';

const SPARSE_METRIC = 'bm25';

type SpaceIndex =
  | { kind: 'dense'; spec: SpaceIndexSpec; index: Index }
  | { kind: 'sparse'; spec: SpaceIndexSpec; index: SparseIndex };

const spaces = new Map<SpaceId, SpaceIndex>();

function emptyEntry(spec: SpaceIndexSpec): SpaceIndex {
  return isSparseSpec(spec)
    ? { kind: 'sparse', spec: { ...spec }, index: new SparseIndex() }
    : { kind: 'dense', spec: { ...spec }, index: newIndex(spec.dim) };
}

function sizeOf(entry: SpaceIndex): number {
  return entry.kind === 'sparse' ? entry.index.size : entry.index.size();
}

function newIndex(dim: number): Index {
  return new Index({
    dimensions: dim,
    metric: METRIC,
    quantization: QUANTIZATION,
    connectivity: CONNECTIVITY,
    expansion_add: EXPANSION_ADD,
    expansion_search: EXPANSION_SEARCH,
    multi: false,
  });
}

function need(space: SpaceId): SpaceIndex {
  const entry = spaces.get(space);
  if (!entry) throw new Error(`no index for space ${space}: call ensure() first`);
  return entry;
}

function ensure(spec: SpaceIndexSpec): void {
  const current = spaces.get(spec.space);
  if (current && current.spec.dim === spec.dim && current.spec.modelId === spec.modelId) return;
  // A new dim or model makes every stored vector incomparable: start empty.
  spaces.set(spec.space, emptyEntry(spec));
}

function upsert(space: SpaceId, keys: number[], vectors: Float32Array, lengths?: number[]): void {
  const entry = need(space);
  if (entry.kind === 'sparse') return upsertSparse(space, entry.index, keys, vectors, lengths);
  const { spec, index } = entry;
  if (vectors.length !== keys.length * spec.dim) {
    throw new RangeError(`upsert into ${space}: ${keys.length} keys need ${keys.length * spec.dim} floats, got ${vectors.length}`);
  }
  if (keys.length === 0) return;
  // The last vector of a key repeated within one batch wins, as if upserted one by one.
  const lastRow = new Map<number, number>();
  keys.forEach((key, row) => lastRow.set(key, row));
  let bigKeys: BigUint64Array;
  let flat: Float32Array;
  if (lastRow.size === keys.length) {
    bigKeys = BigUint64Array.from(keys, BigInt);
    flat = vectors;
  } else {
    bigKeys = new BigUint64Array(lastRow.size);
    flat = new Float32Array(lastRow.size * spec.dim);
    let i = 0;
    for (const [key, row] of lastRow) {
      bigKeys[i] = BigInt(key);
      flat.set(vectors.subarray(row * spec.dim, (row + 1) * spec.dim), i * spec.dim);
      i++;
    }
  }
  // USearch rejects duplicate keys, so replacing means remove then add. contains() first:
  // remove() is far slower (about 0.5 ms per key in the stack check) and most keys are new.
  const present = index.contains(bigKeys) as boolean[];
  const existing = bigKeys.filter((_, i) => present[i]);
  if (existing.length > 0) index.remove(existing);
  // Capacity: the binding reserves ceil2(size + batch) before adding whenever the batch would
  // not fit, so capacity doubles ahead of the size and an add never fails for lack of room.
  // (2.25.3 exposes no reserve() to JavaScript; the test grows an index across several doublings.)
  index.add(bigKeys, flat, ADD_THREADS);
}

/** Rows of variable length, row i being `lengths[i]` floats of packed (term id, tf) pairs. */
function upsertSparse(space: SpaceId, index: SparseIndex, keys: number[], vectors: Float32Array, lengths?: number[]): void {
  if (!lengths || lengths.length !== keys.length) {
    throw new RangeError(`upsert into sparse space ${space}: ${keys.length} keys need as many row lengths, got ${lengths?.length ?? 'none'}`);
  }
  const total = lengths.reduce((a, b) => a + b, 0);
  if (total !== vectors.length) throw new RangeError(`upsert into sparse space ${space}: row lengths add up to ${total}, got ${vectors.length} floats`);
  let o = 0;
  keys.forEach((key, i) => {
    const len = lengths[i]!;
    // Later rows of a repeated key win, as upsert replaces.
    const { ids, weights } = unpackTerms(vectors.subarray(o, o + len));
    index.upsert(key, ids, weights);
    o += len;
  });
}

function remove(space: SpaceId, keys: number[]): number {
  const entry = spaces.get(space);
  if (!entry || keys.length === 0) return 0;
  if (entry.kind === 'sparse') {
    let n = 0;
    for (const key of keys) if (entry.index.remove(key)) n++;
    return n;
  }
  const bigKeys = BigUint64Array.from(keys, BigInt);
  const present = entry.index.contains(bigKeys) as boolean[];
  const existing = bigKeys.filter((_, i) => present[i]);
  if (existing.length > 0) entry.index.remove(existing);
  return existing.length;
}

function search(space: SpaceId, query: Float32Array, k: number): VectorHit[] {
  const entry = spaces.get(space);
  if (!entry) return [];
  if (entry.kind === 'sparse') {
    // The query is a packed term vector from the same encoder; its weights are not used.
    if (k <= 0 || query.length === 0) return [];
    return entry.index.search(unpackTerms(query).ids, k);
  }
  const size = entry.index.size();
  if (size === 0 || k <= 0) return [];
  if (query.length !== entry.spec.dim) {
    throw new RangeError(`search in ${space}: query has ${query.length} dimensions, the index ${entry.spec.dim}`);
  }
  const matches = entry.index.search(query, Math.min(Math.floor(k), size), SEARCH_THREADS);
  const hits: VectorHit[] = [];
  for (let i = 0; i < matches.keys.length; i++) {
    hits.push({ key: Number(matches.keys[i]), similarity: 1 - matches.distances[i]! });
  }
  return hits;
}

function sizes(): Partial<Record<SpaceId, number>> {
  const out: Partial<Record<SpaceId, number>> = {};
  for (const [space, entry] of spaces) out[space] = sizeOf(entry);
  return out;
}

function fileOf(entry: SpaceIndex): string {
  return entry.kind === 'sparse' ? `${entry.spec.space}.bm25` : `${entry.spec.space}.usearch`;
}

/**
 * Index files first, meta.json last, each written to a temp name and renamed, so a crash
 * mid-save leaves whole files. If it stops between an index file and meta.json, that file is
 * newer than meta's feedSeq; replaying the feed from there re-applies idempotent upserts and
 * removes, so the index converges all the same.
 */
async function save(dir: string, feedSeq: number): Promise<void> {
  await mkdir(dir, { recursive: true });
  const meta: SnapshotMeta = { version: 1, feedSeq, savedAt: new Date().toISOString(), spaces: [] };
  for (const entry of spaces.values()) {
    const file = fileOf(entry);
    const path = join(dir, file);
    if (entry.kind === 'sparse') {
      await writeFile(`${path}.tmp`, entry.index.serialize());
      await rename(`${path}.tmp`, path);
      meta.spaces.push({ ...entry.spec, file, size: entry.index.size, metric: SPARSE_METRIC, quantization: 'none', connectivity: 0 });
      continue;
    }
    const { spec, index } = entry;
    index.save(`${path}.tmp`);
    await rename(`${path}.tmp`, path);
    meta.spaces.push({
      ...spec,
      file,
      size: index.size(),
      metric: METRIC,
      quantization: QUANTIZATION,
      connectivity: CONNECTIVITY,
    });
  }
  const metaPath = join(dir, META_FILE);
  await writeFile(`${metaPath}.tmp`, JSON.stringify(meta, null, 2) + '\n');
  await rename(`${metaPath}.tmp`, metaPath);
}

async function load(dir: string, specs: SpaceIndexSpec[]): Promise<LoadResult> {
  const result: LoadResult = { feedSeq: 0, loaded: [], skipped: [] };
  let meta: SnapshotMeta | undefined;
  try {
    meta = JSON.parse(await readFile(join(dir, META_FILE), 'utf8')) as SnapshotMeta;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  for (const spec of specs) {
    const saved = meta?.spaces.find((s) => s.space === spec.space);
    let reason: string | undefined;
    if (!meta) reason = 'no snapshot';
    else if (!saved) reason = 'not in the snapshot';
    else if (saved.dim !== spec.dim || saved.modelId !== spec.modelId) reason = `snapshot has ${saved.modelId}/${saved.dim}`;
    else if (isSparseSpec(spec) ? saved.metric !== SPARSE_METRIC : saved.metric !== METRIC || saved.quantization !== QUANTIZATION || saved.connectivity !== CONNECTIVITY) {
      reason = 'index settings changed';
    }
    if (!reason && isSparseSpec(spec)) {
      try {
        const index = SparseIndex.deserialize(await readFile(join(dir, saved!.file)));
        spaces.set(spec.space, { kind: 'sparse', spec: { ...spec }, index });
        result.loaded.push(spec.space);
        continue;
      } catch (err) {
        reason = `unreadable: ${(err as Error).message}`;
      }
    } else if (!reason) {
      const index = newIndex(spec.dim);
      try {
        index.load(join(dir, saved!.file));
        // load() takes the file's own header, whatever the constructor said.
        if (index.dimensions() !== spec.dim) reason = `file has dimension ${index.dimensions()}`;
        else {
          spaces.set(spec.space, { kind: 'dense', spec: { ...spec }, index });
          result.loaded.push(spec.space);
          continue;
        }
      } catch (err) {
        reason = `unreadable: ${(err as Error).message}`;
      }
    }
    // Whatever was not loaded starts empty, ready for the caller to replay the feed into it.
    spaces.set(spec.space, emptyEntry(spec));
    result.skipped.push({ space: spec.space, reason });
  }
  // A partial load still needs the whole feed for the empty spaces; replay is idempotent.
  if (meta && result.skipped.length === 0 && specs.length > 0) result.feedSeq = meta.feedSeq;
  return result;
}

export default async function handle(task: IndexTask): Promise<IndexResults[IndexTask['op']]> {
  switch (task.op) {
    case 'ensure':
      return ensure(task.spec);
    case 'upsert':
      return upsert(task.space, task.keys, task.vectors, task.lengths);
    case 'remove':
      return remove(task.space, task.keys);
    case 'search':
      return search(task.space, task.query, task.k);
    case 'sizes':
      return sizes();
    case 'save':
      return save(task.dir, task.feedSeq);
    case 'load':
      return load(task.dir, task.specs);
    case 'close':
      spaces.clear();
      return;
  }
}
