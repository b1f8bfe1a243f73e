import { randomBytes } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * One process per data directory. PGlite does not lock its files, and two instances on one
 * directory corrupt it (stack-notes §7), so every process that opens `<dataDir>/pg` holds
 * `<dataDir>/lock.json` first.
 *
 * Liveness is `process.kill(pid, 0)` on this machine. The hostname is recorded for the message
 * only: a container recreated on the same volume gets a new hostname, and its predecessor's lock
 * must still count as stale. (Two hosts sharing one directory over a network file system are
 * not supported by PGlite anyway.)
 */

export type LockMode = 'serve' | 'stdio' | 'worker' | 'import' | 'export';

export interface LockInfo {
  mode: LockMode;
  url?: string | undefined;
}

/** The content of lock.json. */
export interface LockHolder {
  pid: number;
  mode: LockMode;
  url?: string | undefined;
  startedAt: string;
  hostname?: string | undefined;
}

export interface HeldBy {
  heldBy: LockHolder & { dataDir: string };
}

export interface DirLock {
  readonly dataDir: string;
  readonly path: string;
  /** What this process wrote. */
  readonly holder: LockHolder;
  /** The dead process whose stale lock this one replaced, for a log line. */
  readonly tookOverFrom: LockHolder | null;
  /** Records new details (the HTTP URL once the port is known); atomic via rename. */
  update(info: Partial<LockInfo>): Promise<void>;
  /** Removes lock.json if it is still ours. Idempotent. */
  release(): Promise<void>;
}

export function isHeldBy(result: DirLock | HeldBy): result is HeldBy {
  return 'heldBy' in result;
}

// Directories this process holds, shared by every copy of this module loaded in the process.
// It tells "a lock with my pid that I hold" (held) from "a lock with my pid left by an earlier
// process that had the same pid" (stale: containers restart with the same low pids).
const registryKey = Symbol.for('context-graph.dirLocks');
const heldDirs = ((globalThis as Record<symbol, unknown>)[registryKey] ??= new Map<string, LockHolder>()) as Map<string, LockHolder>;
// Acquires of one directory within this process run one at a time.
const acquiring = new Map<string, Promise<unknown>>();

const LOCK_FILE = 'lock.json';
// An unreadable lock file younger than this may be one another process is still writing.
const PARTIAL_WRITE_GRACE_MS = 2_000;
// A takeover claim older than this belongs to a process that died mid-takeover.
const ABANDONED_CLAIM_MS = 10_000;
const MAX_ATTEMPTS = 400;

export async function acquireDirLock(dataDir: string, info: LockInfo): Promise<DirLock | HeldBy> {
  const dir = resolve(dataDir);
  const previous = acquiring.get(dir) ?? Promise.resolve();
  const attempt = previous.then(() => acquireOnce(dir, info));
  const settled = attempt.catch(() => {});
  acquiring.set(dir, settled);
  void settled.then(() => {
    if (acquiring.get(dir) === settled) acquiring.delete(dir);
  });
  return attempt;
}

async function acquireOnce(dir: string, info: LockInfo): Promise<DirLock | HeldBy> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, LOCK_FILE);
  const ours = heldDirs.get(dir);
  if (ours) return { heldBy: { ...ours, dataDir: dir } };
  let tookOverFrom: LockHolder | null = null;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const holder: LockHolder = { pid: process.pid, mode: info.mode, url: info.url, startedAt: new Date().toISOString(), hostname: hostname() };
    // Registered before the file exists, so no reader sees our pid in it unregistered.
    heldDirs.set(dir, holder);
    if (await createExclusive(path, serialize(holder))) return makeLock(dir, path, holder, tookOverFrom);
    heldDirs.delete(dir);

    const current = await readLock(path);
    if (current.kind === 'missing') continue; // released between our create and our read
    if (current.kind === 'unreadable' && current.ageMs < PARTIAL_WRITE_GRACE_MS) {
      await sleep(20);
      continue;
    }
    if (current.kind === 'valid' && isAlive(current.holder, dir)) {
      return { heldBy: { ...current.holder, dataDir: dir } };
    }
    // Stale. Racing takeovers must not both win: only the process that creates the claim named
    // after this exact stale content may remove it, and it re-reads before doing so.
    const claim = `${path}.takeover-${fingerprint(current.raw)}`;
    if (!(await createExclusive(claim, String(process.pid)))) {
      await removeIfAbandoned(claim);
      await sleep(10 + Math.random() * 20);
      continue;
    }
    try {
      const again = await readLock(path);
      if (again.kind !== 'missing' && again.raw === current.raw) {
        await unlink(path).catch(ignoreMissing);
        if (current.kind === 'valid') tookOverFrom = current.holder;
      }
    } finally {
      await unlink(claim).catch(ignoreMissing);
    }
  }
  throw new Error(`could not acquire ${path} after ${MAX_ATTEMPTS} attempts; remove the file if no context-graph process uses ${dir}`);
}

function makeLock(dataDir: string, path: string, initial: LockHolder, tookOverFrom: LockHolder | null): DirLock {
  let holder = initial;
  let released = false;
  const isOurs = (raw: string) => {
    const parsed = parseHolder(raw);
    return parsed !== null && parsed.pid === holder.pid && parsed.startedAt === holder.startedAt;
  };
  // 'exit' handlers must be synchronous. A crash that skips it (SIGKILL, OOM) leaves a stale
  // lock, which the next start takes over.
  const onExit = () => {
    if (released) return;
    try {
      if (isOurs(readFileSync(path, 'utf8'))) unlinkSync(path);
    } catch {
      // Nothing useful to do while exiting.
    }
  };
  process.on('exit', onExit);

  return {
    dataDir,
    path,
    get holder() {
      return holder;
    },
    tookOverFrom,
    async update(info) {
      if (released) throw new Error(`lock ${path} was released`);
      const next: LockHolder = { ...holder, ...info };
      const current = await readFile(path, 'utf8').catch(() => '');
      if (!isOurs(current)) throw new Error(`lock ${path} is no longer held by this process`);
      const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      const fh = await open(tmp, 'wx');
      try {
        await fh.writeFile(serialize(next));
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(tmp, path);
      holder = next;
      heldDirs.set(dataDir, next);
    },
    async release() {
      if (released) return;
      released = true;
      process.removeListener('exit', onExit);
      if (heldDirs.get(dataDir) === holder) heldDirs.delete(dataDir);
      const current = await readFile(path, 'utf8').catch(() => '');
      if (isOurs(current)) await unlink(path).catch(ignoreMissing);
    },
  };
}

/**
 * One line for logs and the CLI: who holds the directory and how to reach it, e.g.
 * `data directory /x is in use by pid 123 (serve, http://127.0.0.1:7411/mcp since …)`.
 */
export function describeHolder(held: HeldBy | (LockHolder & { dataDir?: string })): string;
export function describeHolder(dataDir: string, holder: LockHolder): string;
export function describeHolder(a: string | HeldBy | (LockHolder & { dataDir?: string }), b?: LockHolder): string {
  const h: LockHolder & { dataDir?: string } = typeof a === 'string' ? { ...b!, dataDir: a } : 'heldBy' in a ? a.heldBy : a;
  const where = h.dataDir ? `data directory ${h.dataDir}` : 'the data directory';
  const via = [h.mode, h.url].filter(Boolean).join(', ');
  const host = h.hostname && h.hostname !== hostname() ? ` on host ${h.hostname}` : '';
  return `${where} is in use by pid ${h.pid}${host} (${via} since ${h.startedAt})`;
}

type ReadResult = { kind: 'missing' } | { kind: 'unreadable'; raw: string; ageMs: number } | { kind: 'valid'; raw: string; holder: LockHolder };

async function readLock(path: string): Promise<ReadResult> {
  let raw: string;
  let ageMs: number;
  try {
    [raw, ageMs] = await Promise.all([readFile(path, 'utf8'), stat(path).then((s) => Date.now() - s.mtimeMs)]);
  } catch (err) {
    if (isMissing(err)) return { kind: 'missing' };
    throw err;
  }
  const holder = parseHolder(raw);
  return holder ? { kind: 'valid', raw, holder } : { kind: 'unreadable', raw, ageMs };
}

function parseHolder(raw: string): LockHolder | null {
  try {
    const v = JSON.parse(raw) as Partial<LockHolder> | null;
    if (!v || !Number.isInteger(v.pid) || (v.pid as number) <= 0 || typeof v.startedAt !== 'string') return null;
    const mode = v.mode === 'serve' || v.mode === 'stdio' || v.mode === 'worker' || v.mode === 'import' || v.mode === 'export' ? v.mode : 'serve';
    return {
      pid: v.pid as number,
      mode,
      url: typeof v.url === 'string' ? v.url : undefined,
      startedAt: v.startedAt,
      hostname: typeof v.hostname === 'string' ? v.hostname : undefined,
    };
  } catch {
    return null;
  }
}

function isAlive(holder: LockHolder, dir: string): boolean {
  if (holder.pid === process.pid) return heldDirs.has(dir);
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function createExclusive(path: string, content: string): Promise<boolean> {
  let fh;
  try {
    fh = await open(path, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    await fh.writeFile(content);
    await fh.sync();
  } finally {
    await fh.close();
  }
  return true;
}

async function removeIfAbandoned(claim: string): Promise<void> {
  try {
    const s = await stat(claim);
    if (Date.now() - s.mtimeMs > ABANDONED_CLAIM_MS) await unlink(claim);
  } catch (err) {
    if (!isMissing(err)) throw err;
  }
}

function serialize(holder: LockHolder): string {
  return JSON.stringify(holder, null, 2) + '\n';
}

function fingerprint(raw: string): string {
  // Short and filename-safe; collisions only matter between two stale contents at once.
  let h = 0x811c9dc5;
  for (let i = 0; i < raw.length; i++) h = Math.imul(h ^ raw.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}

function ignoreMissing(err: unknown): void {
  if (!isMissing(err)) throw err;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
