import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { App } from '../app.js';
import { createMcpServer } from '../mcp/server.js';
import { sendJson, type HttpTransport, type RequestContext, type Route } from './http-server.js';

/** MCP Streamable HTTP (stateful sessions, one McpServer each) at this path. */
export const MCP_PATH = '/mcp';

const SESSION_IDLE_MS = 30 * 60 * 1000;

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  lastSeen: number;
}

function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

export function streamableHttp(app: App): HttpTransport {
  const sessions = new Map<string, Session>();
  const log = app.logger.child({ transport: 'http' });

  function sessionOf(req: IncomingMessage): { id: string | undefined; session: Session | undefined } {
    const header = req.headers['mcp-session-id'];
    const id = typeof header === 'string' ? header : undefined;
    const session = id === undefined ? undefined : sessions.get(id);
    if (session) session.lastSeen = Date.now();
    return { id, session };
  }

  async function post(req: IncomingMessage, res: ServerResponse, ctx: RequestContext): Promise<void> {
    const body = await ctx.readJson();
    const { id, session } = sessionOf(req);
    if (session) return session.transport.handleRequest(req, res, body);
    if (id !== undefined) return rpcError(res, 404, -32001, 'Session not found: start a new one with initialize.');
    if (!isInitializeRequest(body)) return rpcError(res, 400, -32000, 'Bad request: no mcp-session-id header and not an initialize request.');
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (newId) => {
        sessions.set(newId, { transport, server, lastSeen: Date.now() });
        log.debug({ session: newId }, 'session opened');
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    const server = createMcpServer(app, { actor: `http:${randomUUID().slice(0, 8)}` });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  /** GET opens the session's standalone event stream; DELETE ends the session. */
  async function existingSessionOnly(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { id, session } = sessionOf(req);
    if (id === undefined) return rpcError(res, 400, -32000, 'Bad request: mcp-session-id header required.');
    if (!session) return rpcError(res, 404, -32001, 'Session not found.');
    await session.transport.handleRequest(req, res);
  }

  const sweeper = setInterval(() => {
    const cutoff = Date.now() - SESSION_IDLE_MS;
    for (const [id, s] of sessions) {
      if (s.lastSeen >= cutoff) continue;
      void s.transport.close().catch(() => {});
      sessions.delete(id);
    }
  }, 60_000);
  sweeper.unref();

  const routes: Route[] = [
    { method: 'GET', path: MCP_PATH, handler: existingSessionOnly, jsonRpc: true },
    { method: 'POST', path: MCP_PATH, handler: post, jsonRpc: true },
    { method: 'DELETE', path: MCP_PATH, handler: existingSessionOnly, jsonRpc: true },
  ];
  return {
    routes,
    sessionCount: () => sessions.size,
    async close() {
      clearInterval(sweeper);
      for (const s of sessions.values()) await s.transport.close().catch(() => {});
      sessions.clear();
    },
  };
}
