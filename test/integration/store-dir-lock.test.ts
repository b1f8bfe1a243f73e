import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { acquireDirLock, describeHolder, isHeldBy, type DirLock, type HeldBy } from '../../src/store/dir-lock.js';

// The compiled module the child processes import: the same code, in another process.
const MODULE = fileURLToPath(new URL('../../src/store/dir-lock.js', import.meta.url));

// argv: [module, dataDir, goAtEpochMs?]. Prints one JSON line, then holds until stdin closes.
const CHILD = `
const { pathToFileURL } = await import('node:url');
const { acquireDirLock, isHeldBy } = await import(pathToFileURL(process.argv[1]).href);
const goAt = Number(process.argv[3] || 0);
while (Date.now() < goAt) {} // every racer starts its acquire at the same instant
const r = await acquireDirLock(process.argv[2], { mode: 'worker', url: 'http://127.0.0.1:1/mcp' });
process.stdout.write(JSON.stringify(isHeldBy(r) ? { held: r.heldBy.pid } : { won: process.pid }) + '\\n');
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
`;

interface Child {
  proc: ChildProcess;
  result: Promise<{ won?: number; held?: number }>;
  exited: Promise<number | null>;
}

const children: Child[] = [];
const dirs: string[] = [];

after(async () => {
  for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'cg-dir-lock-'));
  dirs.push(d);
  return d;
}

function startChild(dataDir: string, goAt = 0): Child {
  const proc = spawn(process.execPath, ['--input-type=module', '-e', CHILD, MODULE, dataDir, String(goAt)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: proc.stdout! });
  const result = new Promise<{ won?: number; held?: number }>((resolve, reject) => {
    lines.once('line', (line) => resolve(JSON.parse(line)));
    proc.once('exit', (code) => reject(new Error(`child exited (${code}) before acquiring`)));
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const child = { proc, result, exited };
  children.push(child);
  return child;
}

function asLock(r: DirLock | HeldBy): DirLock {
  assert.ok(!isHeldBy(r), `expected to acquire, but ${isHeldBy(r) ? describeHolder(r) : ''}`);
  return r;
}

async function staleLockFromKilledChild(dir: string): Promise<number> {
  const child = startChild(dir);
  const { won } = await child.result;
  assert.equal(won, child.proc.pid);
  child.proc.kill('SIGKILL'); // no 'exit' handler runs: the crash case
  await child.exited;
  const left = JSON.parse(await readFile(join(dir, 'lock.json'), 'utf8'));
  assert.equal(left.pid, child.proc.pid, 'the killed child left its lock behind');
  return child.proc.pid!;
}

test('a second acquire in the same process sees the directory held by our pid', async () => {
  const dir = await tempDir();
  const lock = asLock(await acquireDirLock(dir, { mode: 'serve' }));
  const content = JSON.parse(await readFile(join(dir, 'lock.json'), 'utf8'));
  assert.equal(content.pid, process.pid);
  assert.equal(content.mode, 'serve');
  assert.equal(typeof content.startedAt, 'string');
  assert.equal(typeof content.hostname, 'string');

  await lock.update({ url: 'http://127.0.0.1:7411/mcp' });
  const second = await acquireDirLock(dir, { mode: 'stdio' });
  assert.ok(isHeldBy(second));
  assert.equal(second.heldBy.pid, process.pid);
  assert.equal(second.heldBy.mode, 'serve');
  assert.equal(second.heldBy.url, 'http://127.0.0.1:7411/mcp');
  assert.equal(describeHolder(second), `data directory ${dir} is in use by pid ${process.pid} (serve, http://127.0.0.1:7411/mcp since ${content.startedAt})`);
  assert.equal(describeHolder(second.heldBy), describeHolder(second));
  assert.equal(describeHolder(dir, second.heldBy), describeHolder(second));

  await lock.release();
  assert.equal(existsSync(join(dir, 'lock.json')), false, 'release removes the file');
  await lock.release(); // idempotent
  const again = asLock(await acquireDirLock(dir, { mode: 'stdio' }));
  await again.release();
});

test('acquire creates a missing data directory', async () => {
  const dir = join(await tempDir(), 'nested', 'data');
  const lock = asLock(await acquireDirLock(dir, { mode: 'worker' }));
  assert.ok(existsSync(join(dir, 'lock.json')));
  await lock.release();
});

test('a live child process holding the lock is reported, and its exit releases it', async () => {
  const dir = await tempDir();
  const child = startChild(dir);
  assert.deepEqual(await child.result, { won: child.proc.pid });
  const r = await acquireDirLock(dir, { mode: 'serve' });
  assert.ok(isHeldBy(r));
  assert.equal(r.heldBy.pid, child.proc.pid);
  assert.equal(r.heldBy.mode, 'worker');
  assert.match(describeHolder(r), new RegExp(`in use by pid ${child.proc.pid} \\(worker, http://127\\.0\\.0\\.1:1/mcp since `));
  assert.ok(existsSync(join(dir, 'lock.json')), 'a refused acquire leaves the holder alone');

  child.proc.stdin!.end(); // the child exits normally: its 'exit' handler removes the file
  assert.equal(await child.exited, 0);
  assert.equal(existsSync(join(dir, 'lock.json')), false);
});

test('the lock of a child that died is taken over', async () => {
  const dir = await tempDir();
  const deadPid = await staleLockFromKilledChild(dir);
  const lock = asLock(await acquireDirLock(dir, { mode: 'serve' }));
  assert.equal(lock.tookOverFrom?.pid, deadPid);
  assert.equal(JSON.parse(await readFile(lock.path, 'utf8')).pid, process.pid);
  await lock.release();
  assert.deepEqual(await readdir(dir), [], 'no claim or temp files left behind');
});

test('a lock with our own pid that this process does not hold is stale (a restarted container reuses pids)', async () => {
  const dir = await tempDir();
  const old = { pid: process.pid, mode: 'serve', startedAt: '2020-01-01T00:00:00.000Z', hostname: 'old-container' };
  await writeFile(join(dir, 'lock.json'), JSON.stringify(old));
  const lock = asLock(await acquireDirLock(dir, { mode: 'serve' }));
  assert.equal(lock.tookOverFrom?.startedAt, old.startedAt);
  await lock.release();
});

test('an empty lock file (a crash between create and write) is stale once it is old', async () => {
  const dir = await tempDir();
  const path = join(dir, 'lock.json');
  await writeFile(path, '');
  const past = new Date(Date.now() - 60_000);
  await utimes(path, past, past);
  const lock = asLock(await acquireDirLock(dir, { mode: 'stdio' }));
  assert.equal(lock.tookOverFrom, null);
  await lock.release();
});

test('release leaves a lock that is no longer ours', async () => {
  const dir = await tempDir();
  const lock = asLock(await acquireDirLock(dir, { mode: 'serve' }));
  const foreign = JSON.stringify({ pid: 1, mode: 'serve', startedAt: new Date().toISOString() });
  await writeFile(lock.path, foreign);
  await lock.release();
  assert.equal(await readFile(lock.path, 'utf8'), foreign);
});

test('processes racing to take over one stale lock: exactly one wins', async () => {
  for (let round = 0; round < 3; round++) {
    const dir = await tempDir();
    await staleLockFromKilledChild(dir);
    const goAt = Date.now() + 1_500;
    const racers = Array.from({ length: 5 }, () => startChild(dir, goAt));
    const results = await Promise.all(racers.map((c) => c.result));
    const winners = results.filter((r) => r.won !== undefined);
    assert.equal(winners.length, 1, `round ${round}: ${JSON.stringify(results)}`);
    const winner = winners[0]!.won;
    for (const r of results) if (r.held !== undefined) assert.equal(r.held, winner, 'every loser names the winner');
    assert.equal(JSON.parse(await readFile(join(dir, 'lock.json'), 'utf8')).pid, winner);
    for (const c of racers) c.proc.stdin!.end();
    await Promise.all(racers.map((c) => c.exited));
    assert.deepEqual(await readdir(dir), [], 'the winner released on exit; no claim files left');
  }
});
