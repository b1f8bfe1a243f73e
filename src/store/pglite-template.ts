import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * What PGlite's initdb makes of an empty data directory, as a tar file, so a new store starts
 * from it instead of running initdb (issue 15). initdb in this process runs a second Postgres
 * WASM instance whose memory (~140 MB) the process keeps for its whole life, and it costs ~4 s of
 * CPU per new store (a test file opens several). The tar depends only on the PGlite build: it is
 * made once per PGlite version, by a short-lived child process (so not even that one initdb
 * stays in this process), and kept in the user's cache directory (`$XDG_CACHE_HOME/context-graph`,
 * else `~/.cache/context-graph`). Undefined when it cannot be had (no writable cache directory,
 * the child failed): callers then let PGlite run initdb itself, as before.
 */
export async function pgliteTemplate(): Promise<Uint8Array | undefined> {
  try {
    const path = templatePath();
    try {
      return await readFile(path);
    } catch {
      made ??= makeTemplate(path);
      await made;
      return await readFile(path);
    }
  } catch {
    return undefined;
  }
}

let made: Promise<void> | undefined;

const pgliteEntry = import.meta.resolve('@electric-sql/pglite');

function templatePath(): string {
  const pkg = join(dirname(fileURLToPath(pgliteEntry)), '..', 'package.json');
  const { version } = JSON.parse(readFileSync(pkg, 'utf8')) as { version: string };
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cache, 'context-graph', `pglite-${version}-initdb-v1.tar`);
}

async function makeTemplate(path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  // A fresh in-memory PGlite runs initdb; the checkpoint leaves nothing to replay in the copy.
  // Written under a temporary name and renamed: concurrent makers (parallel test files) each
  // write a whole file, and a reader never sees half of one.
  const script = `
    import { writeFileSync, renameSync } from 'node:fs';
    const { PGlite } = await import(${JSON.stringify(pgliteEntry)});
    const pg = await PGlite.create();
    await pg.exec('checkpoint');
    const tar = Buffer.from(await (await pg.dumpDataDir('none')).arrayBuffer());
    await pg.close();
    const tmp = ${JSON.stringify(path)} + '.' + process.pid + '.tmp';
    writeFileSync(tmp, tar);
    renameSync(tmp, ${JSON.stringify(path)});`;
  await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { timeout: 120_000 });
}

/**
 * Writes the template into `dir` when it is missing or empty, so PGlite opens it as an existing
 * store. Plain file writes, not PGlite's `loadDataDir`: that keeps the tar's copies (~130 MB)
 * reachable for the life of the instance. Extracted beside `dir` and renamed into place, so a
 * crash leaves either no store or a whole one. Best effort: false (and `dir` left as it was)
 * when there is no template or it does not extract; PGlite then runs initdb.
 */
export async function seedDataDir(dir: string): Promise<boolean> {
  const existing = await readdir(dir).catch(() => null);
  if (existing && existing.length > 0) return false;
  const tar = await pgliteTemplate();
  if (!tar) return false;
  const tmp = `${dir}.seed-${process.pid}`;
  try {
    await rm(tmp, { recursive: true, force: true });
    await mkdir(tmp, { recursive: true, mode: 0o700 });
    await untar(tar, tmp);
    if (existing) await rm(dir, { recursive: true });
    await rename(tmp, dir);
    return true;
  } catch {
    await rm(tmp, { recursive: true, force: true }).catch(() => {});
    return false;
  }
}

/** The tar PGlite's dumpDataDir writes: 512-byte headers, directories and regular files only. */
async function untar(tar: Uint8Array, into: string): Promise<void> {
  const text = (at: number, len: number) => {
    const field = Buffer.from(tar.buffer, tar.byteOffset + at, len);
    const end = field.indexOf(0);
    return field.toString('utf8', 0, end < 0 ? len : end);
  };
  const octal = (at: number, len: number) => parseInt(text(at, len).trim() || '0', 8);
  let at = 0;
  while (at + 512 <= tar.length && tar[at] !== 0) {
    const name = (text(at + 345, 155) ? `${text(at + 345, 155)}/` : '') + text(at, 100);
    const size = octal(at + 124, 12);
    const type = String.fromCharCode(tar[at + 156] || 48);
    const path = join(into, ...name.split('/').filter((p) => p && p !== '.'));
    if (name.split('/').includes('..') || !path.startsWith(into)) throw new Error(`tar entry outside the data directory: ${name}`);
    if (type === '5') await mkdir(path, { recursive: true, mode: 0o700 });
    else if (type === '0') {
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      await writeFile(path, tar.subarray(at + 512, at + 512 + size), { mode: 0o600 });
    } else throw new Error(`tar entry of type ${type}: ${name}`);
    at += 512 + Math.ceil(size / 512) * 512;
  }
}
