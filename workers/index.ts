/**
 * Piscina entry for the vector indexes: one index per embedding space, of the kind the space
 * declares (src/index/kinds/: USearch HNSW for dense spaces, BM25 for sparse ones), held in
 * this thread's module state. Every call is synchronous CPU work, so they run here, off the
 * main event loop; the host runs exactly one such thread and sends every call through it.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SpaceId } from '../src/embed/types.js';
import { indexKind } from '../src/index/kinds/registry.js';
import { SNAPSHOT_FORMAT, type IndexResults, type IndexTask, type LoadResult, type SnapshotMeta } from '../src/index/protocol.js';
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

function sizes(): Partial<Record<SpaceId, number>> {
  const out: Partial<Record<SpaceId, number>> = {};
  for (const [space, index] of spaces) out[space] = index.size();
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

async function load(dir: string, specs: ResolvedSpec[]): Promise<LoadResult> {
  const result: LoadResult = { feedSeq: 0, loaded: [], skipped: [] };
  const meta = await readMeta(dir);
  for (const spec of specs) {
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
        continue;
      } catch (err) {
        reason = (err as Error).message;
      }
    }
    // Whatever was not loaded starts empty, ready for the caller to replay the feed into it.
    spaces.set(spec.space, indexKind(spec.index).create({ ...spec }));
    result.skipped.push({ space: spec.space, reason });
  }
  // A partial load still needs the whole feed for the empty spaces; replay is idempotent.
  if (meta && result.skipped.length === 0 && specs.length > 0) result.feedSeq = meta.feedSeq;
  return result;
}

function batch(task: Extract<IndexTask, { op: 'batch' }>): void {
  for (const r of task.removals) spaces.get(r.space)?.remove(r.keys);
  let offset = 0;
  for (const u of task.upserts) {
    const floats = u.lengths.reduce((a, b) => a + b, 0);
    need(u.space).upsert(u.keys, task.vectors.subarray(offset, offset + floats), u.lengths);
    offset += floats;
  }
}

export default async function handle(task: IndexTask): Promise<IndexResults[IndexTask['op']]> {
  switch (task.op) {
    case 'ensure':
      return ensure(task.spec);
    case 'batch':
      return batch(task);
    case 'search':
      return search(task.space, task.query, task.k, task.among);
    case 'idf':
      return spaces.get(task.space)?.idf?.(task.termIds) ?? task.termIds.map(() => 0);
    case 'sizes':
      return sizes();
    case 'reads':
      return Promise.all(
        task.tasks.map((t) =>
          handle(t).then(
            (value) => ({ ok: true as const, value }),
            (err: unknown) => ({ ok: false as const, message: err instanceof Error ? err.message : String(err) }),
          ),
        ),
      );
    case 'save':
      return save(task.dir, task.feedSeq);
    case 'load':
      return load(task.dir, task.specs);
    case 'close':
      spaces.clear();
      return;
  }
}
