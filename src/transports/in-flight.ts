import type { IncomingMessage } from 'node:http';
import type { Config } from '../config.js';
import { HttpError } from './http-server.js';

/**
 * Requests in flight on the HTTP front end: a client address (all its sessions, the REST
 * gateway included) and one MCP session may each have only so many unanswered at once. A rate
 * limit bounds how fast calls arrive; this bounds how many pile up when answers are slow (a
 * stalled store, a long search), which is what holds memory and starves other clients. A
 * request past either cap is HTTP 503 with Retry-After and the registered BUSY error
 * (retryable). Only requests that do work count: POST, PUT and PATCH. GETs (event streams that
 * stay open) and DELETEs (which free a session) are never refused here.
 */
export interface InFlightOptions {
  perClient: number;
  perSession: number;
}

class Counts {
  private readonly n = new Map<string, number>();
  constructor(private readonly max: number) {}

  /** Takes a place for `key`, or answers false when it has `max` already. */
  enter(key: string): boolean {
    const n = this.n.get(key) ?? 0;
    if (n >= this.max) return false;
    this.n.set(key, n + 1);
    return true;
  }

  leave(key: string): void {
    const left = (this.n.get(key) ?? 1) - 1;
    if (left <= 0) this.n.delete(key);
    else this.n.set(key, left);
  }

  /** Keys with a request in flight (an idle client costs nothing). */
  get size(): number {
    return this.n.size;
  }
}

const COUNTED = new Set(['POST', 'PUT', 'PATCH']);

export class InFlightLimits {
  private readonly clients: Counts;
  private readonly sessions: Counts;

  static fromConfig(config: Pick<Config, 'maxInFlightPerClient' | 'maxInFlightPerSession'>): InFlightLimits {
    return new InFlightLimits({ perClient: config.maxInFlightPerClient, perSession: config.maxInFlightPerSession });
  }

  constructor(readonly opts: InFlightOptions) {
    this.clients = new Counts(opts.perClient);
    this.sessions = new Counts(opts.perSession);
  }

  /**
   * Takes this request's places, or throws HttpError 503 BUSY. Answers the function that gives
   * them back (call it once the response is done or the connection is gone; calling it again
   * does nothing), or null when the request is not counted.
   */
  admit(req: IncomingMessage, query: URLSearchParams): (() => void) | null {
    if (!COUNTED.has(req.method ?? '')) return null;
    const client = req.socket.remoteAddress ?? 'unknown';
    const header = req.headers['mcp-session-id'];
    const session = (Array.isArray(header) ? header[0] : header) ?? query.get('sessionId');
    if (!this.clients.enter(client)) throw busy(`This client has ${this.opts.perClient} requests unanswered, the most it may have at once`);
    if (session && !this.sessions.enter(session)) {
      this.clients.leave(client);
      throw busy(`This session has ${this.opts.perSession} requests unanswered, the most it may have at once`);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.clients.leave(client);
      if (session) this.sessions.leave(session);
    };
  }

  /** Client addresses and sessions with a request in flight now. */
  usage(): { clients: number; sessions: number } {
    return { clients: this.clients.size, sessions: this.sessions.size };
  }
}

function busy(what: string): HttpError {
  return new HttpError(503, 'BUSY', `${what}: wait for an answer, then retry.`, { 'retry-after': '1' }, { retryable: true, retry_after_ms: 1_000 });
}
