import pino from 'pino';

export type Logger = pino.Logger;

/** Components a log line can name (pino child binding `component`); get_system_logs filters by them. */
export const LOG_COMPONENTS = ['storage', 'retrieval', 'curation', 'dream', 'gwt'] as const;
export type LogComponent = (typeof LOG_COMPONENTS)[number];

/** Lines the in-memory ring keeps; the oldest go first. get_system_logs reads at most 1,000 of them. */
export const LOG_RING_CAPACITY = 2_000;

/** One line as the ring keeps it: the pino JSON line with secrets already scrubbed. */
export interface RingLine {
  seq: number;
  level: number;
  line: string;
}

// Values that must never leave the process, whatever a caller asks for: credentials in URLs,
// bearer tokens and fields named like secrets.
const SECRET_KEYS = /"((?:[\w-]*(?:token|password|passwd|secret|api[_-]?key|authorization|cookie|credential)[\w-]*))"\s*:\s*"(?:[^"\\]|\\.)*"/gi;
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s:/@"]+):([^\s@/"]+)@/gi;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g;

/** Removes secrets from a serialized log line (keys named like secrets, URL passwords, bearer tokens). */
export function scrubSecrets(line: string): string {
  return line.replace(SECRET_KEYS, '"$1":"[redacted]"').replace(URL_CREDENTIALS, '$1$2:[redacted]@').replace(BEARER, '$1 [redacted]');
}

/**
 * A bounded ring of recent log lines, written as a pino stream beside stderr. It records debug
 * and above even when stderr shows less, so "why don't you remember X?" can be answered from the
 * server itself (get_system_logs) without raising the operator's log level.
 */
export class LogRing {
  private readonly lines: RingLine[] = [];
  private seq = 0;
  constructor(readonly capacity = LOG_RING_CAPACITY) {}

  write(chunk: string): void {
    const line = scrubSecrets(chunk.trimEnd());
    const level = Number(/"level":(\d+)/.exec(line)?.[1] ?? 30);
    this.lines.push({ seq: ++this.seq, level, line });
    if (this.lines.length > this.capacity) this.lines.splice(0, this.lines.length - this.capacity);
  }

  /** Newest first. */
  recent(): RingLine[] {
    return [...this.lines].reverse();
  }

  /** Lines written since the process started, including those the ring has dropped. */
  get written(): number {
    return this.seq;
  }
}

const rings = new WeakMap<object, LogRing>();

/** The ring a logger made by createLogger tees into; null for any other logger. */
export function logRingOf(logger: Logger): LogRing | null {
  return rings.get(logger) ?? null;
}

/**
 * Logs go to stderr only: in stdio mode stdout carries JSON-RPC and nothing else.
 * Synchronous writes so a crash does not lose the line that explains it. Every line (debug and
 * above) is also kept in a bounded in-memory ring (logRingOf); `silent` keeps neither.
 */
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  if (level === 'silent') return pino({ level, base: { pid: process.pid } }, pino.destination({ fd: 2, sync: true }));
  const ring = new LogRing();
  const ringLevel = pino.levels.values[level]! < pino.levels.values.debug! ? (level as pino.Level) : 'debug';
  const logger = pino(
    { level: ringLevel, base: { pid: process.pid } },
    pino.multistream([
      { level: level as pino.Level, stream: pino.destination({ fd: 2, sync: true }) },
      { level: ringLevel, stream: { write: (chunk: string) => ring.write(chunk) } },
    ]),
  );
  rings.set(logger, ring);
  return logger;
}
