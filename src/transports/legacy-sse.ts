import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../app.js';
import { ERROR_REGISTRY } from '../errors.js';
import { createMcpServer } from '../mcp/server.js';
import { HttpError, type HttpTransport, type RequestContext, type Route } from './http-server.js';
import { parseEventId, SseSession } from './sse-session.js';
import { SessionLimits, type SessionTicket } from './session-limits.js';

/**
 * The legacy HTTP+SSE transport (MCP 2024-11-05) for clients that predate Streamable HTTP:
 * `GET /sse` opens (or, with `Last-Event-ID` or `?sessionId=`, resumes) a session's event
 * stream, `POST /messages?sessionId=…` carries the client's messages. Sessions serve the same
 * tools, resources and prompts as `/mcp` (one McpServer each) and survive a dropped connection
 * for the grace period, work in flight included; after it they answer SSE_SESSION_EXPIRED.
 *
 * A reconnect names its session by `Last-Event-ID` (browsers), `?sessionId=`, or — for clients
 * that drop the Last-Event-ID header, as the MCP SDK's SSEClientTransport does — by a random
 * `?resume_key=` the client put in its /sse URL, which every reconnect repeats.
 */
export const SSE_PATH = '/sse';
export const MESSAGES_PATH = '/messages';
/** Expired resume keys remembered (to answer −32016 rather than start afresh), oldest dropped. */
const EXPIRED_KEYS_KEPT = 10_000;

function expired(id: string): HttpError {
  return new HttpError(404, 'SSE_SESSION_EXPIRED', `SSE session ${id} not found or expired. ${ERROR_REGISTRY.SSE_SESSION_EXPIRED.hint}`);
}

/** `limits` is shared with /mcp (one global count); from the config when not given. */
export function legacySse(app: App, opts: { heartbeatMs: number; graceMs: number; limits?: SessionLimits }): HttpTransport {
  const ownLimits = opts.limits ? null : SessionLimits.fromConfig(app.config);
  const limits = opts.limits ?? ownLimits!;
  const tickets = new Map<string, SessionTicket>();
  const sessions = new Map<string, SseSession>();
  const byKey = new Map<string, SseSession>();
  const expiredKeys = new Set<string>();
  const log = app.logger.child({ transport: 'sse' });

  async function open(req: IncomingMessage, res: ServerResponse, key: string | null): Promise<void> {
    const id = randomUUID();
    // Idle past the limit (no message POSTed, stream open or not): the session ends.
    const ticket = limits.admit(req, () => void session.close());
    tickets.set(id, ticket);
    const session = new SseSession({
      id,
      endpoint: `${MESSAGES_PATH}?sessionId=${id}`,
      heartbeatMs: opts.heartbeatMs,
      graceMs: opts.graceMs,
      maxBytes: app.config.sessionMemoryBytes,
      onExpired: () => {
        ticket.release();
        tickets.delete(id);
        sessions.delete(id);
        if (key !== null) {
          byKey.delete(key);
          expiredKeys.add(key);
          if (expiredKeys.size > EXPIRED_KEYS_KEPT) expiredKeys.delete(expiredKeys.values().next().value!);
        }
        log.debug({ session: id }, 'session ended');
      },
    });
    sessions.set(id, session);
    if (key !== null) byKey.set(key, session);
    const server = createMcpServer(app, { actor: `sse:${id.slice(0, 8)}` });
    session.onclose = () => void server.close().catch(() => {});
    await server.connect(session);
    session.attach(res);
    log.debug({ session: id }, 'session opened');
  }

  async function get(req: IncomingMessage, res: ServerResponse, ctx: RequestContext): Promise<void> {
    const lastEventId = req.headers['last-event-id'];
    const resumed = typeof lastEventId === 'string' ? parseEventId(lastEventId) : null;
    const key = ctx.query.get('resume_key');
    if (key !== null && !/^[\w-]{16,128}$/.test(key)) throw new HttpError(400, 'BAD_REQUEST', 'Bad request: resume_key must be 16 to 128 letters, digits, - or _.');
    const id = ctx.query.get('sessionId') ?? resumed?.session ?? byKey.get(key ?? '')?.sessionId;
    if (id === undefined) {
      if (key !== null && expiredKeys.has(key)) throw expired(key);
      return open(req, res, key);
    }
    const session = sessions.get(id);
    if (!session) throw expired(id);
    tickets.get(id)?.touch();
    session.attach(res, resumed?.session === id ? resumed.seq : undefined);
    log.debug({ session: id, after: resumed?.seq }, 'session resumed');
  }

  async function post(_req: IncomingMessage, res: ServerResponse, ctx: RequestContext): Promise<void> {
    const id = ctx.query.get('sessionId');
    if (!id) throw new HttpError(400, 'BAD_REQUEST', 'Bad request: the sessionId query parameter is required.');
    const session = sessions.get(id);
    if (!session) throw expired(id);
    tickets.get(id)?.touch();
    const parsed = JSONRPCMessageSchema.safeParse(await ctx.readJson());
    if (!parsed.success) throw new HttpError(400, 'BAD_REQUEST', 'Bad request: the body is not a JSON-RPC message.');
    // Answers travel on the event stream (buffered while it is down), so accept at once.
    res.writeHead(202, { 'content-type': 'text/plain' }).end('Accepted');
    session.onmessage?.(parsed.data);
  }

  const routes: Route[] = [
    { method: 'GET', path: SSE_PATH, handler: get, jsonRpc: true },
    { method: 'POST', path: MESSAGES_PATH, handler: post, jsonRpc: true },
  ];
  return {
    routes,
    sessionCount: () => sessions.size,
    async close() {
      for (const s of [...sessions.values()]) await s.close().catch(() => {});
      sessions.clear();
      ownLimits?.close();
    },
  };
}
