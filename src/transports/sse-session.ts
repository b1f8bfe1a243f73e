import type { ServerResponse } from 'node:http';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_SESSION_REPLAY_BYTES, ReplayBuffer } from './event-store.js';

/**
 * One legacy HTTP+SSE session (MCP 2024-11-05) that outlives its connection. The SDK's
 * SSEServerTransport is bound to one response and closes with it, which is exactly what the
 * reconnect grace must not do; so the session is this Transport, and a connection is only where
 * its events currently go. Every message event carries `id: <session>.<seq>`: a browser
 * EventSource (and the SDK's SSEClientTransport, which uses one) reconnects by itself with that
 * id as `Last-Event-ID`, which names both the session to resume and what it has already seen.
 */

/** Events kept for replay: a reconnecting client gets those after its Last-Event-ID. */
const REPLAY_EVENTS = 1_000;
/** What an EventSource waits before reconnecting (its default is 3 s). */
const RETRY_MS = 500;

export interface SseSessionOptions {
  id: string;
  /** Path with query the client POSTs its messages to, sent as the `endpoint` event. */
  endpoint: string;
  heartbeatMs: number;
  /** How long the session waits for a reconnect after its connection drops. */
  graceMs: number;
  /**
   * Bytes of events kept for replay (the oldest are dropped past it), and of events the
   * connection may leave unread: past that the connection is closed, and the client's reconnect
   * replays what it missed from the kept events, so a client that stops reading cannot make the
   * server queue without end.
   */
  maxBytes?: number;
  /** Called once the grace is over, or the session is closed. */
  onExpired(): void;
}

/** `<session>.<seq>` → its parts; null when the id is not one of ours. */
export function parseEventId(eventId: string): { session: string; seq: number } | null {
  const dot = eventId.lastIndexOf('.');
  const seq = Number(eventId.slice(dot + 1));
  if (dot <= 0 || !Number.isInteger(seq) || seq < 0) return null;
  return { session: eventId.slice(0, dot), seq };
}

export class SseSession implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  readonly sessionId: string;
  /** Connections this session has had, the first included. */
  connections = 0;
  private seq = 0;
  /** The last event sent before the current (or last) connection began. */
  private connectedAtSeq = 0;
  private readonly events: ReplayBuffer<string>;
  private readonly maxBytes: number;
  private res: ServerResponse | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private grace: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly opts: SseSessionOptions) {
    this.sessionId = opts.id;
    this.maxBytes = opts.maxBytes ?? DEFAULT_SESSION_REPLAY_BYTES;
    this.events = new ReplayBuffer({ maxEvents: REPLAY_EVENTS, maxBytes: this.maxBytes });
  }

  get connected(): boolean {
    return this.res !== null;
  }

  async start(): Promise<void> {}

  /** Stores the message for replay and writes it to the connection, if there is one. */
  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error('SSE session closed');
    const seq = ++this.seq;
    const frame = `id: ${this.sessionId}.${seq}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`;
    this.events.push(seq, '', frame, Buffer.byteLength(frame));
    this.res?.write(frame);
    if (this.res && this.res.writableLength > this.maxBytes) this.res.destroy();
  }

  /**
   * Makes `res` the session's connection: the endpoint event, a first heartbeat, then every
   * message after `afterSeq` and from now on. A previous connection is ended. A client that
   * reconnects without saying what it saw (no Last-Event-ID) gets everything sent since its
   * previous connection began: at least once, since what a dying socket took is unknowable.
   */
  attach(res: ServerResponse, afterSeq: number = this.connectedAtSeq): void {
    if (this.closed) throw new Error('SSE session closed');
    this.connections++;
    if (this.grace) clearTimeout(this.grace);
    this.grace = null;
    const previous = this.res;
    this.res = res;
    previous?.end();
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    res.write(`retry: ${RETRY_MS}\nevent: endpoint\ndata: ${this.opts.endpoint}\n\n`);
    this.beat();
    for (const e of this.events.after(null, afterSeq)) res.write(e.item);
    this.connectedAtSeq = this.seq;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = setInterval(() => this.beat(), this.opts.heartbeatMs);
    this.heartbeat.unref();
    res.once('close', () => this.detach(res));
  }

  private beat(): void {
    this.res?.write(`event: heartbeat\ndata: ${JSON.stringify({ type: 'ping', timestamp: Math.floor(Date.now() / 1000) })}\n\n`);
  }

  /** The connection dropped: keep the session (and its running work) for the grace period. */
  private detach(res: ServerResponse): void {
    if (this.res !== res) return;
    this.res = null;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    if (this.closed) return;
    this.grace = setTimeout(() => void this.close(), this.opts.graceMs);
    this.grace.unref();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.grace) clearTimeout(this.grace);
    const res = this.res;
    this.res = null;
    res?.end();
    this.opts.onExpired();
    this.onclose?.();
  }
}
