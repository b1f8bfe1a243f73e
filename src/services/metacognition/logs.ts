import pino from 'pino';
import type { LogRing } from '../../log.js';

export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

export interface LogEntry {
  seq: number;
  time: string;
  level: string;
  component: string | null;
  msg: string;
  /** The line's other fields (pid, hostname and time left out), secrets already scrubbed. */
  fields: Record<string, unknown>;
}

const OMIT = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'component']);

/**
 * The newest `limit` lines of the ring at `level` or more severe, optionally of one component
 * (the `component` binding of the service's child logger). Lines are parsed only here, on read.
 */
export function readLogs(
  ring: LogRing | null,
  q: { level: LogLevelName; limit: number; component: string },
): { entries: LogEntry[]; scanned: number; kept: number; written: number } {
  if (!ring) return { entries: [], scanned: 0, kept: 0, written: 0 };
  const min = pino.levels.values[q.level]!;
  const entries: LogEntry[] = [];
  const lines = ring.recent();
  for (const l of lines) {
    if (entries.length >= q.limit) break;
    if (l.level < min) continue;
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(l.line) as Record<string, unknown>;
    } catch {
      continue;
    }
    const component = typeof parsed.component === 'string' ? parsed.component : null;
    if (q.component !== 'all' && component !== q.component) continue;
    const fields = Object.fromEntries(Object.entries(parsed).filter(([k]) => !OMIT.has(k)));
    entries.push({
      seq: l.seq,
      time: new Date(typeof parsed.time === 'number' ? parsed.time : 0).toISOString(),
      level: pino.levels.labels[l.level] ?? String(l.level),
      component,
      msg: typeof parsed.msg === 'string' ? parsed.msg : '',
      fields,
    });
  }
  return { entries, scanned: lines.length, kept: ring.capacity, written: ring.written };
}
