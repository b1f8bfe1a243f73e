import type { IncomingMessage } from 'node:http';
import type { Config } from '../config.js';
import { HttpError } from './http-server.js';

/**
 * Bounds on open MCP sessions, shared by every session transport of one front end (`/mcp` and
 * `/sse`): at most `maxSessions` in all, at most `maxPerClient` from one client address, and a
 * session with no request for `idleMs` is closed. Each session holds a ticket from `admit`; a
 * refused one is HTTP 503 with Retry-After and the BUSY JSON-RPC error, so clients back off.
 */
export interface SessionLimitOptions {
  maxSessions: number;
  maxPerClient: number;
  idleMs: number;
}

export interface SessionTicket {
  /** The session was used: its idle clock starts again. */
  touch(): void;
  /** The session ended: its place is free. Idempotent. */
  release(): void;
}

interface Held {
  client: string;
  lastSeen: number;
  onIdle: () => void;
}

export class SessionLimits {
  private readonly held = new Set<Held>();
  private readonly sweeper: NodeJS.Timeout;

  static fromConfig(config: Pick<Config, 'maxSessions' | 'maxSessionsPerClient' | 'sessionIdleMs'>): SessionLimits {
    return new SessionLimits({ maxSessions: config.maxSessions, maxPerClient: config.maxSessionsPerClient, idleMs: config.sessionIdleMs });
  }

  constructor(readonly opts: SessionLimitOptions) {
    // Often enough that a session outlives its idle time by at most a fraction of it.
    this.sweeper = setInterval(() => this.sweep(), Math.max(50, Math.min(opts.idleMs / 4, 60_000)));
    this.sweeper.unref();
  }

  /** A place for a new session from this request's client, or an HttpError 503 (BUSY). */
  admit(req: IncomingMessage, onIdle: () => void): SessionTicket {
    const client = req.socket.remoteAddress ?? 'unknown';
    const fromClient = [...this.held].filter((h) => h.client === client).length;
    if (this.held.size >= this.opts.maxSessions) {
      throw this.busy(`Too many open sessions (${this.opts.maxSessions}, the server's limit): retry later, or end unused sessions (DELETE /mcp).`, this.held);
    }
    if (fromClient >= this.opts.maxPerClient) {
      const own = [...this.held].filter((h) => h.client === client);
      throw this.busy(`Too many open sessions from this client (${this.opts.maxPerClient}): reuse one, or end unused sessions (DELETE /mcp) and retry.`, own);
    }
    const entry: Held = { client, lastSeen: Date.now(), onIdle };
    this.held.add(entry);
    return {
      touch: () => void (entry.lastSeen = Date.now()),
      release: () => void this.held.delete(entry),
    };
  }

  get size(): number {
    return this.held.size;
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  /** Retry-After: when the first of the sessions in the way would expire if left idle. */
  private busy(message: string, inTheWay: Iterable<Held>): HttpError {
    let soonest = Infinity;
    for (const h of inTheWay) soonest = Math.min(soonest, h.lastSeen + this.opts.idleMs);
    const seconds = Number.isFinite(soonest) ? Math.max(1, Math.ceil((soonest - Date.now()) / 1000)) : 1;
    return new HttpError(503, 'BUSY', message, { 'retry-after': String(seconds) });
  }

  private sweep(): void {
    const cutoff = Date.now() - this.opts.idleMs;
    for (const h of [...this.held]) {
      if (h.lastSeen > cutoff) continue;
      this.held.delete(h);
      h.onIdle();
    }
  }
}
