import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';

/** What every figure is stamped with: the machine and the run's settings. */
export interface Machine {
  cpus: number;
  cpu_model: string | undefined;
  memory_gb: number;
  node: string;
  platform: string;
  load_avg_at_start: number[];
  git_commit: string | null;
}

export function machine(): Machine {
  let commit: string | null = null;
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    commit = null;
  }
  return {
    cpus: cpus().length,
    cpu_model: cpus()[0]?.model,
    memory_gb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    load_avg_at_start: loadavg().map((x) => Math.round(x * 100) / 100),
    git_commit: commit,
  };
}

const started = Date.now();

/** Progress on stderr: one line per step, with the elapsed time of the whole run. */
export function log(msg: string): void {
  const s = ((Date.now() - started) / 1000).toFixed(0).padStart(4);
  process.stderr.write(`[bench ${s}s] ${msg}\n`);
}

/** A counter that prints about 10 updates over `total` steps. */
export function progress(label: string, total: number): (done: number) => void {
  const every = Math.max(1, Math.floor(total / 10));
  return (done) => {
    if (done === total || done % every === 0) log(`${label} ${done}/${total}`);
  };
}

/** Resident set size of a process in bytes (Linux /proc), or null. */
export function rssOf(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

export async function dirBytes(path: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(path, { withFileTypes: true }).catch(() => [])) {
    const p = join(path, entry.name);
    if (entry.isDirectory()) total += await dirBytes(p);
    else if (entry.isFile()) total += (await stat(p)).size;
  }
  return total;
}
