import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { App } from '../app.js';
import { createMcpServer } from '../mcp/server.js';
import {
  DEFAULT_SESSION_REPLAY_BYTES,
  EVENTS_PER_STREAM,
  fallbackEventLog,
  memoryEventLog,
  parseStreamEventId,
  redisEventLog,
  sessionEventStore,
  type EventLog,
  type EventLogUsage,
} from './event-store.js';
import { sendJson, type HttpTransport, type RequestContext, type Route } from './http-server.js';
import { SessionLimits, type SessionTicket } from './session-limits.js';

/** MCP Streamable HTTP (stateful sessions, one McpServer each) at this path. */
export const MCP_PATH = '/mcp';

/** The `retry` hint of resumable streams (SEP-1699): how long a client waits before resuming. */
const RETRY_HINT_MS = 1_000;

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  ticket: SessionTicket;
}

function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

/**
 * @param limits shared with the other session transports of the front end (one global count);
 *   from the config when not given.
 */
/** What the transport holds now: open sessions and the events kept for them in memory. */
export interface StreamableUsage {
  sessions: number;
  events: EventLogUsage;
}

export function streamableHttp(app: App, limits?: SessionLimits): HttpTransport & { usage(): StreamableUsage } {
  const ownLimits = limits ? null : SessionLimits.fromConfig(app.config);
  const bounds = limits ?? ownLimits!;
  const sessions = new Map<string, Session>();
  const log = app.logger.child({ transport: 'http' });
  // Distributed: events in Redis, so a client can resume its stream through another front end.
  // In memory, a session keeps at most CONTEXT_GRAPH_SESSION_MEMORY_BYTES of events (the oldest are dropped).
  const replay = { maxEvents: EVENTS_PER_STREAM, maxBytes: app.config.sessionMemoryBytes ?? DEFAULT_SESSION_REPLAY_BYTES };
  const events: EventLog & { usage(): EventLogUsage } = app.config.redisUrl
    ? fallbackEventLog(
        redisEventLog(app.config.redisUrl, `cg:${app.config.queueName}`),
        (session, err) => app.logger.warn({ err, session }, 'Redis event store unavailable; this session keeps its events in memory (no resumption through another front end)'),
        replay,
      )
    : memoryEventLog(replay);

  function sessionOf(req: IncomingMessage): { id: string | undefined; session: Session | undefined } {
    const header = req.headers['mcp-session-id'];
    const id = typeof header === 'string' ? header : undefined;
    const session = id === undefined ? undefined : sessions.get(id);
    session?.ticket.touch();
    return { id, session };
  }

  async function post(req: IncomingMessage, res: ServerResponse, ctx: RequestContext): Promise<void> {
    const body = await ctx.readJson();
    const { id, session } = sessionOf(req);
    if (session) return session.transport.handleRequest(req, res, body);
    if (id !== undefined) return rpcError(res, 404, -32001, 'Session not found: start a new one with initialize.');
    if (!isInitializeRequest(body)) return rpcError(res, 400, -32000, 'Bad request: no mcp-session-id header and not an initialize request.');
    // Idle past the limit: the session ends as a DELETE would end it.
    const ticket = bounds.admit(req, () => void transport.close().catch(() => {}));
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: sessionEventStore(events, () => transport.sessionId),
      retryInterval: RETRY_HINT_MS,
      onsessioninitialized: (newId) => {
        sessions.set(newId, { transport, server, ticket });
        log.debug({ session: newId }, 'session opened');
      },
    });
    transport.onclose = () => {
      ticket.release();
      if (!transport.sessionId) return;
      sessions.delete(transport.sessionId);
      void events.forget(transport.sessionId).catch(() => {});
    };
    const server = createMcpServer(app, { actor: `http:${randomUUID().slice(0, 8)}` });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    // An initialize the transport refused opened no session: its place is free again.
    if (!transport.sessionId) ticket.release();
  }

  /** GET opens the session's standalone event stream; DELETE ends the session. */
  async function existingSessionOnly(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { id, session } = sessionOf(req);
    if (id === undefined) return rpcError(res, 400, -32000, 'Bad request: mcp-session-id header required.');
    if (!session) {
      if (req.method === 'GET' && (await replayElsewhere(req, res, id))) return;
      return rpcError(res, 404, -32001, 'Session not found.');
    }
    await session.transport.handleRequest(req, res);
  }

  /**
   * A resume for a session another front end holds (distributed mode): replay what it stored
   * after Last-Event-ID and end the stream; the client resumes again for anything later.
   */
  async function replayElsewhere(req: IncomingMessage, res: ServerResponse, id: string): Promise<boolean> {
    const lastEventId = req.headers['last-event-id'];
    const from = typeof lastEventId === 'string' ? parseStreamEventId(lastEventId) : null;
    if (!from || !(await events.has(id))) return false;
    const missed = await events.after(id, from.stream, from.seq);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', 'mcp-session-id': id });
    for (const e of missed) if ('jsonrpc' in e.message) res.write(`event: message\nid: ${from.stream}|${e.seq}\ndata: ${JSON.stringify(e.message)}\n\n`);
    res.end(`retry: ${RETRY_HINT_MS}\n\n`);
    return true;
  }

  const routes: Route[] = [
    { method: 'GET', path: MCP_PATH, handler: existingSessionOnly, jsonRpc: true },
    { method: 'POST', path: MCP_PATH, handler: post, jsonRpc: true },
    { method: 'DELETE', path: MCP_PATH, handler: existingSessionOnly, jsonRpc: true },
  ];
  return {
    routes,
    sessionCount: () => sessions.size,
    usage: () => ({ sessions: sessions.size, events: events.usage() }),
    async close() {
      ownLimits?.close();
      for (const s of sessions.values()) await s.transport.close().catch(() => {});
      sessions.clear();
      await events.close();
    },
  };
}
