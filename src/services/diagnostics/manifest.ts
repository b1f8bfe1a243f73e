import { createHash } from 'node:crypto';
import { readFile, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AppError } from '../../errors.js';
import type { Db } from '../../store/db.js';
import { manifestNodes } from '../../store/diagnostics-repo.js';
import { editNode, insertNode, lockNodesById, softDeleteNodes, type NodeRecord } from '../../store/nodes-repo.js';
import { tombstoneEdgesAndVectors } from '../curation.js';
import type { EmbeddingScheduler } from '../embedding-scheduler.js';
import { contentHash, image, newNode, writeTransaction } from '../writes.js';

/**
 * The user manifest (seed 001 §3.6 REQ-MCP-P2-006): a markdown file of goals, preferences and
 * standing facts. Each list item under a heading becomes a pinned memory (topic = the heading,
 * importance 1, metadata.pinned and metadata.manifest = {path, section, key}). An item may name
 * itself with a leading `[key]`, so editing its text is a change rather than a removal plus an
 * addition; without one, its key is a hash of its section and text.
 *
 * reload applies the difference between the file and the memories it pinned before (added,
 * changed, removed) as ONE transaction, so `undo` reverts a whole reload. Only files under the
 * allowed roots (the default manifest's folder and the data directory) are read, after symbolic
 * links are resolved.
 */

export const MANIFEST_MAX_BYTES = 256 * 1024;
export const MANIFEST_MAX_ITEMS = 500;
export const MANIFEST_ITEM_MAX_CHARS = 4_000;

export interface ManifestItem {
  key: string;
  section: string;
  text: string;
}

export interface ReloadResult {
  path: string;
  txId: number | null;
  items: number;
  added: NodeRecord[];
  changed: NodeRecord[];
  removed: NodeRecord[];
  unchanged: number;
}

/** `~/x` → the home directory's x; everything else resolved against the working directory. */
export function expandHome(path: string): string {
  return resolve(path === '~' ? homedir() : path.startsWith('~/') ? `${homedir()}/${path.slice(2)}` : path);
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-|-$/g, '') || 'general';

/** List items under headings; `[key]` at an item's start names it. Indented lines continue the item above. */
export function parseManifest(markdown: string): ManifestItem[] {
  const items: ManifestItem[] = [];
  let section = 'General';
  let current: ManifestItem | null = null;
  const push = () => {
    if (current && current.text.trim() !== '') items.push({ ...current, text: current.text.trim().slice(0, MANIFEST_ITEM_MAX_CHARS) });
    current = null;
  };
  for (const line of markdown.split(/\r?\n/)) {
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) {
      push();
      section = heading[1]!.trim();
      continue;
    }
    const item = /^\s{0,3}(?:[-*+]|\d+[.)])\s+(?:\[([\w.:/-]{1,64})\]\s*)?(.*)$/.exec(line);
    if (item) {
      push();
      current = { key: item[1] ?? '', section, text: item[2] ?? '' };
      continue;
    }
    if (current && /^\s{2,}\S/.test(line)) current.text += ` ${line.trim()}`;
    else push();
  }
  push();
  const seen = new Map<string, number>();
  return items.map((it) => {
    const base = it.key
      ? `${slug(it.section)}/${it.key}`
      : `${slug(it.section)}/${createHash('sha256').update(it.text.replace(/\s+/g, ' ').toLowerCase()).digest('hex').slice(0, 16)}`;
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return { ...it, key: n === 0 ? base : `${base}#${n + 1}` };
  });
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

async function realOrSelf(path: string): Promise<string> {
  return realpath(path).catch(() => path);
}

export class ManifestService {
  constructor(private readonly deps: { db: Db; embedding: Pick<EmbeddingScheduler, 'schedule'> | null; manifestPath: string; dataDir: string }) {}

  /** The default manifest, `~` expanded. */
  defaultPath(): string {
    return expandHome(this.deps.manifestPath);
  }

  /** The folders a manifest may be read from, symbolic links resolved. */
  async allowedRoots(): Promise<string[]> {
    return [...new Set(await Promise.all([dirname(this.defaultPath()), resolve(this.deps.dataDir)].map(realOrSelf)))];
  }

  private async resolveAllowed(path: string | undefined): Promise<string> {
    const wanted = path ? expandHome(path) : this.defaultPath();
    const real = await realOrSelf(wanted);
    const roots = await this.allowedRoots();
    if (!roots.some((root) => inside(root, real))) {
      throw new AppError('PATH_NOT_ALLOWED', `${wanted} is outside the folders a manifest may be read from (${roots.join(', ')}).`, { path: wanted, allowed_roots: roots });
    }
    const info = await stat(real).catch(() => null);
    if (!info || !info.isFile()) throw new AppError('MANIFEST_NOT_FOUND', `No manifest file at ${wanted}.`, { path: wanted });
    if (info.size > MANIFEST_MAX_BYTES) {
      throw new AppError('VALIDATION_FAILED', `The manifest ${wanted} has ${info.size} bytes; at most ${MANIFEST_MAX_BYTES} are read.`, {
        path: wanted,
        bytes: info.size,
        max_bytes: MANIFEST_MAX_BYTES,
      });
    }
    return real;
  }

  async reload(opts: { path?: string | undefined; projectId: string; actor: string }): Promise<ReloadResult> {
    const path = await this.resolveAllowed(opts.path);
    const items = parseManifest(await readFile(path, 'utf8'));
    if (items.length > MANIFEST_MAX_ITEMS) {
      throw new AppError('VALIDATION_FAILED', `The manifest has ${items.length} items; at most ${MANIFEST_MAX_ITEMS}.`, {
        path,
        items: items.length,
        max_items: MANIFEST_MAX_ITEMS,
      });
    }
    const source = pathToFileURL(path).href;
    const fields = (it: ManifestItem) => ({
      content: it.text,
      topic: it.section,
      tags: ['manifest', slug(it.section)],
      importance: 1,
      metadata: { pinned: true, manifest: { path, section: it.section, key: it.key } },
    });
    const committed = await writeTransaction(this.deps.db, 'manifest_reload', { actor: opts.actor, rationale: `reload_manifest ${path}` }, async (tx, log) => {
      const existing = await manifestNodes(tx, path);
      const keyOf = (n: NodeRecord) => {
        const key = (n.metadata.manifest as { key?: unknown } | undefined)?.key;
        return typeof key === 'string' ? key : '';
      };
      const byKey = new Map(existing.map((n) => [keyOf(n), n]));
      const added: NodeRecord[] = [];
      const changed: NodeRecord[] = [];
      let unchanged = 0;
      for (const it of items) {
        const old = byKey.get(it.key);
        byKey.delete(it.key);
        const f = fields(it);
        if (!old || old.project_id !== opts.projectId) {
          if (old) byKey.set(`moved:${old.id}`, old);
          const row = await insertNode(tx, newNode({ kind: 'memory', project_id: opts.projectId, source_uri: source, ...f }));
          log({ entity: 'node', entityId: row.id, before: null, after: image(row) });
          added.push(row);
        } else if (old.content !== f.content || old.topic !== f.topic) {
          const [locked] = await lockNodesById(tx, [old.id]);
          const row = await editNode(tx, old.id, {
            ...locked!,
            content: f.content,
            topic: f.topic,
            tags: f.tags,
            importance: locked!.importance,
            content_hash: contentHash(f.content),
          });
          log({ entity: 'node', entityId: old.id, before: image(locked), after: image(row) });
          changed.push(row);
        } else unchanged++;
      }
      const gone = [...byKey.values()];
      const removed = gone.length
        ? await softDeleteNodes(
            tx,
            gone.map((n) => n.id),
          )
        : [];
      const before = new Map(gone.map((n) => [n.id, n]));
      for (const row of removed) log({ entity: 'node', entityId: row.id, before: image(before.get(row.id)!), after: image(row) });
      if (gone.length) await tombstoneEdgesAndVectors(tx, gone, log);
      return { added, changed, removed, unchanged };
    });
    const { added, changed, removed, unchanged } = committed.result;
    if (this.deps.embedding && added.length + changed.length > 0) await this.deps.embedding.schedule([...added, ...changed]);
    return { path, txId: committed.txId || null, items: items.length, added, changed, removed, unchanged };
  }
}
