import type { EventStore, EventId, StreamId } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * Resumable Streamable HTTP: every event the SDK writes to a session's streams is stored first,
 * so a client that reconnects with `Last-Event-ID` gets what it missed. Stream ids are only
 * unique within a session (every session's standalone GET stream is `_GET_stream`), so a store
 * is per session; an event id is `<stream>|<seq>`, which names its stream without a lookup (the
 * SDK example's id format breaks on `_GET_stream`'s underscores).
 *
 * Two backends: in memory (one front end), and Redis (distributed: another front end can replay
 * a session's events after the one holding it lost the client's stream).
 */
export interface EventLog {
  append(session: string, stream: StreamId, message: JSONRPCMessage): Promise<number>;
  after(session: string, stream: StreamId, seq: number): Promise<Array<{ seq: number; message: JSONRPCMessage }>>;
  /** Whether anything of the session is stored (a front end that never held it can still replay). */
  has(session: string): Promise<boolean>;
  forget(session: string): Promise<void>;
  close(): Promise<void>;
}

/** Events kept per stream (per session in memory); a reconnect further behind than this gets the newest ones. */
export const EVENTS_PER_STREAM = 1_000;
/** Bytes of events kept per session in memory when the config does not say (CONTEXT_GRAPH_SESSION_MEMORY_BYTES). */
export const DEFAULT_SESSION_REPLAY_BYTES = 262_144;
/** How long a distributed session's events outlive their last write. */
const REDIS_TTL_SECONDS = 3_600;

export function parseStreamEventId(eventId: EventId): { stream: StreamId; seq: number } | null {
  const bar = eventId.lastIndexOf('|');
  const seq = Number(eventId.slice(bar + 1));
  return bar > 0 && Number.isInteger(seq) && seq >= 0 ? { stream: eventId.slice(0, bar), seq } : null;
}

/** The SDK's EventStore for one session over a shared log. */
export function sessionEventStore(log: EventLog, session: () => string | undefined): EventStore {
  const sessionId = () => session() ?? 'pending';
  return {
    async storeEvent(stream, message) {
      return `${stream}|${await log.append(sessionId(), stream, message)}`;
    },
    async getStreamIdForEventId(eventId) {
      return parseStreamEventId(eventId)?.stream;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const from = parseStreamEventId(lastEventId);
      if (!from) throw new Error('not one of our event ids');
      for (const e of await log.after(sessionId(), from.stream, from.seq)) {
        // Priming events (`{}`) only carry an id; there is nothing in them to replay.
        if ('jsonrpc' in e.message) await send(`${from.stream}|${e.seq}`, e.message);
      }
      return from.stream;
    },
  };
}

/** Bytes one event costs in a replay buffer: its JSON (what a replay sends). */
export function eventBytes(message: unknown): number {
  return Buffer.byteLength(JSON.stringify(message));
}

export interface ReplayBounds {
  /** Events kept per session (all its streams together). */
  maxEvents: number;
  /** Bytes of events kept per session; the oldest go first. */
  maxBytes: number;
}

/**
 * The events of one session, oldest first, bounded in count and bytes: past either bound the
 * oldest are dropped (a resume from further back gets what remains). An event larger than the
 * byte bound on its own is not kept at all; its client had it live.
 */
export class ReplayBuffer<T> {
  private readonly events: Array<{ seq: number; stream: string; bytes: number; item: T }> = [];
  bytes = 0;
  constructor(private readonly bounds: ReplayBounds) {}

  push(seq: number, stream: string, item: T, bytes: number): void {
    if (bytes > this.bounds.maxBytes) return;
    this.events.push({ seq, stream, bytes, item });
    this.bytes += bytes;
    while (this.events.length > this.bounds.maxEvents || this.bytes > this.bounds.maxBytes) this.bytes -= this.events.shift()!.bytes;
  }

  after(stream: string | null, seq: number): Array<{ seq: number; item: T }> {
    return this.events.filter((e) => e.seq > seq && (stream === null || e.stream === stream)).map((e) => ({ seq: e.seq, item: e.item }));
  }

  get count(): number {
    return this.events.length;
  }
}

/** What the memory event log holds now, for tests and the soak report. */
export interface EventLogUsage {
  sessions: number;
  events: number;
  bytes: number;
}

export function memoryEventLog(bounds: ReplayBounds = { maxEvents: EVENTS_PER_STREAM, maxBytes: DEFAULT_SESSION_REPLAY_BYTES }): EventLog & { usage(): EventLogUsage } {
  const sessions = new Map<string, { seq: number; buffer: ReplayBuffer<JSONRPCMessage> }>();
  return {
    async append(session, stream, message) {
      let s = sessions.get(session);
      if (!s) sessions.set(session, (s = { seq: 0, buffer: new ReplayBuffer(bounds) }));
      const seq = ++s.seq;
      s.buffer.push(seq, stream, message, eventBytes(message));
      return seq;
    },
    async after(session, stream, seq) {
      return (sessions.get(session)?.buffer.after(stream, seq) ?? []).map((e) => ({ seq: e.seq, message: e.item }));
    },
    async has(session) {
      return sessions.has(session);
    },
    async forget(session) {
      sessions.delete(session);
    },
    async close() {
      sessions.clear();
    },
    usage() {
      let events = 0;
      let bytes = 0;
      for (const s of sessions.values()) {
        events += s.buffer.count;
        bytes += s.buffer.bytes;
      }
      return { sessions: sessions.size, events, bytes };
    },
  };
}

/**
 * A log that keeps answering while its primary (Redis) is down: a session whose append fails
 * goes on in memory for the rest of its life, so answers still reach the client and only
 * resumption through another front end is lost. Storing an event is on the path of every
 * response; a Redis outage must never turn into a failed tool call.
 */
export function fallbackEventLog(primary: EventLog, onFallback: (session: string, err: unknown) => void, bounds?: ReplayBounds): EventLog & { usage(): EventLogUsage } {
  const local = memoryEventLog(bounds);
  const degraded = new Set<string>();
  const logOf = (session: string) => (degraded.has(session) ? local : primary);
  const guarded = async <T>(session: string, read: (log: EventLog) => Promise<T>, empty: T): Promise<T> => {
    try {
      return await read(logOf(session));
    } catch {
      return empty;
    }
  };
  return {
    async append(session, stream, message) {
      if (!degraded.has(session)) {
        try {
          return await primary.append(session, stream, message);
        } catch (err) {
          degraded.add(session);
          onFallback(session, err);
        }
      }
      return local.append(session, stream, message);
    },
    after: (session, stream, seq) => guarded(session, (log) => log.after(session, stream, seq), []),
    has: (session) => guarded(session, (log) => log.has(session), false),
    async forget(session) {
      degraded.delete(session);
      await local.forget(session);
      await primary.forget(session).catch(() => undefined);
    },
    async close() {
      await local.close();
      await primary.close();
    },
    usage: () => local.usage(),
  };
}

/** Events in one sorted set per stream (score = seq), a counter per session, all with a TTL. */
export function redisEventLog(redisUrl: string, prefix: string): EventLog {
  // ioredis is imported only here, so a server without REDIS_URL never loads it (idle footprint).
  const connected = import('ioredis').then(({ Redis }) => {
    // A stalled Redis fails the command after a second instead of holding the response.
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, commandTimeout: 1_000, lazyConnect: false });
    redis.on('error', () => {});
    return redis;
  });
  const seqKey = (session: string) => `${prefix}:events:${session}:seq`;
  const streamKey = (session: string, stream: StreamId) => `${prefix}:events:${session}:stream:${stream}`;
  return {
    async append(session, stream, message) {
      const redis = await connected;
      const seq = await redis.incr(seqKey(session));
      const key = streamKey(session, stream);
      await redis
        .multi()
        .zadd(key, seq, `${seq}:${JSON.stringify(message)}`)
        .zremrangebyrank(key, 0, -EVENTS_PER_STREAM - 1)
        .expire(key, REDIS_TTL_SECONDS)
        .expire(seqKey(session), REDIS_TTL_SECONDS)
        .exec();
      return seq;
    },
    async after(session, stream, seq) {
      const redis = await connected;
      const flat = await redis.zrangebyscore(streamKey(session, stream), `(${seq}`, '+inf', 'WITHSCORES');
      const out: Array<{ seq: number; message: JSONRPCMessage }> = [];
      // Members are `<seq>:<json>`: a sorted set would fold two identical messages into one.
      for (let i = 0; i < flat.length; i += 2) out.push({ seq: Number(flat[i + 1]), message: JSON.parse(flat[i]!.slice(flat[i]!.indexOf(':') + 1)) as JSONRPCMessage });
      return out;
    },
    async has(session) {
      const redis = await connected;
      return (await redis.exists(seqKey(session))) === 1;
    },
    async forget(session) {
      const redis = await connected;
      // The TTL removes the stream keys; the counter going makes the session unknown at once.
      await redis.del(seqKey(session));
    },
    async close() {
      const redis = await connected;
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
