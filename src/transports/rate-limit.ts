import type { IncomingMessage } from 'node:http';
import type { Config } from '../config.js';
import { HttpError } from './http-server.js';

/**
 * Token buckets on the HTTP front end: one per MCP session and one per client address. Every
 * request to a protected route takes a token from both; an empty bucket answers HTTP 429 with
 * Retry-After and the registered RATE_LIMITED error (retryable, `retry_after_ms` in its data).
 * A bucket holds `burstSeconds` of its rate, so a client may burst and then keeps its rate.
 */
export interface RateLimitOptions {
  /** Requests per second per session; 0 turns the limit off. */
  perSession: number;
  /** Requests per second per client address (all its sessions and session-less requests); 0 turns it off. */
  perClient: number;
  burstSeconds: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Buckets full again are forgotten, so idle clients cost nothing (checked every this many takes). */
const SWEEP_EVERY = 10_000;

class Buckets {
  private readonly buckets = new Map<string, Bucket>();
  private takes = 0;
  constructor(
    private readonly rate: number,
    private readonly capacity: number,
  ) {}

  /** 0 when a token was taken, otherwise the milliseconds until one is there. */
  take(key: string, now: number): number {
    if (++this.takes % SWEEP_EVERY === 0) this.sweep(now);
    const b = this.buckets.get(key) ?? { tokens: this.capacity, at: now };
    b.tokens = Math.min(this.capacity, b.tokens + ((now - b.at) / 1000) * this.rate);
    b.at = now;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - b.tokens) / this.rate) * 1000);
  }

  /** Gives back a token taken for a request another bucket then refused. */
  refund(key: string): void {
    const b = this.buckets.get(key);
    if (b) b.tokens = Math.min(this.capacity, b.tokens + 1);
  }

  private sweep(now: number): void {
    for (const [key, b] of this.buckets) if (b.tokens + ((now - b.at) / 1000) * this.rate >= this.capacity) this.buckets.delete(key);
  }
}

export class RateLimits {
  private readonly sessions: Buckets | null;
  private readonly clients: Buckets | null;

  static fromConfig(config: Pick<Config, 'rateLimitPerSession' | 'rateLimitPerClient' | 'rateLimitBurstSeconds'>): RateLimits {
    return new RateLimits({ perSession: config.rateLimitPerSession, perClient: config.rateLimitPerClient, burstSeconds: config.rateLimitBurstSeconds });
  }

  constructor(readonly opts: RateLimitOptions) {
    const bucketsOf = (rate: number) => (rate > 0 ? new Buckets(rate, Math.max(1, rate * opts.burstSeconds)) : null);
    this.sessions = bucketsOf(opts.perSession);
    this.clients = bucketsOf(opts.perClient);
  }

  /** Takes this request's tokens, or throws HttpError 429 RATE_LIMITED saying when to retry. */
  check(req: IncomingMessage, query: URLSearchParams): void {
    const now = Date.now();
    const client = req.socket.remoteAddress ?? 'unknown';
    const waitClient = this.clients?.take(client, now) ?? 0;
    if (waitClient > 0) throw refusal(`Too many requests from this client (over ${this.opts.perClient} per second)`, waitClient);
    const header = req.headers['mcp-session-id'];
    const session = (Array.isArray(header) ? header[0] : header) ?? query.get('sessionId');
    const waitSession = session ? (this.sessions?.take(session, now) ?? 0) : 0;
    if (waitSession > 0) {
      this.clients?.refund(client);
      throw refusal(`Too many requests in this session (over ${this.opts.perSession} per second)`, waitSession);
    }
  }
}

function refusal(what: string, waitMs: number): HttpError {
  return new HttpError(
    429,
    'RATE_LIMITED',
    `${what}: retry in ${waitMs} ms.`,
    { 'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))) },
    { retryable: true, retry_after_ms: waitMs },
  );
}
