import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { App } from '../app.js';
import { createMcpServer } from '../mcp/server.js';

// Content may be 65,536 characters of 4-byte UTF-8 plus JSON escaping: leave ample room.
const MAX_BODY_BYTES = 4 * 1024 * 1024;
const SESSION_IDLE_MS = 30 * 60 * 1000;

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  lastSeen: number;
}

export interface HttpFrontEnd {
  /** e.g. http://127.0.0.1:7411 */
  baseUrl: string;
  mcpUrl: string;
  sessionCount(): number;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/**
 * Rejects requests whose Host header is not this server: a web page cannot reach a loopback
 * server through DNS rebinding, because its requests carry the attacker's host name.
 */
function hostAllowed(req: IncomingMessage, bindHost: string): boolean {
  const header = req.headers.host;
  if (!header) return false;
  const host = header.startsWith('[') ? header.slice(0, header.indexOf(']') + 1) : header.split(':')[0]!;
  if (LOOPBACK.has(bindHost)) return LOOPBACK.has(host);
  return bindHost === '0.0.0.0' || bindHost === '::' || host === bindHost || LOOPBACK.has(host);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw Object.assign(new Error('body too large'), { status: 413 });
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw Object.assign(new Error('invalid JSON'), { status: 400 });
  }
}

/** Streamable HTTP at /mcp (stateful sessions, one McpServer each) and GET /healthz. */
export async function startHttp(app: App, opts: { host: string; port: number }): Promise<HttpFrontEnd> {
  const sessions = new Map<string, Session>();
  const log = app.logger.child({ transport: 'http' });

  async function handleMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (req.method === 'POST') {
      const body = await readJson(req);
      if (existing) {
        existing.lastSeen = Date.now();
        await existing.transport.handleRequest(req, res, body);
        return;
      }
      if (sessionId !== undefined) return rpcError(res, 404, -32001, 'Session not found: start a new one with initialize.');
      if (!isInitializeRequest(body)) return rpcError(res, 400, -32000, 'Bad request: no mcp-session-id header and not an initialize request.');
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, { transport, server, lastSeen: Date.now() });
          log.debug({ session: id }, 'session opened');
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      const server = createMcpServer(app, { actor: `http:${randomUUID().slice(0, 8)}` });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
      return;
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      if (sessionId === undefined) return rpcError(res, 400, -32000, 'Bad request: mcp-session-id header required.');
      if (!existing) return rpcError(res, 404, -32001, 'Session not found.');
      existing.lastSeen = Date.now();
      await existing.transport.handleRequest(req, res);
      return;
    }
    res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
  }

  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (!hostAllowed(req, opts.host)) return void rpcError(res, 403, -32000, 'Forbidden: unexpected Host header.');
    const route =
      path === '/mcp'
        ? handleMcp(req, res)
        : path === '/healthz' && req.method === 'GET'
          ? app.health().then((h) => sendJson(res, 200, h))
          : Promise.resolve(sendJson(res, 404, { error: 'not found' }));
    route.catch((err: Error & { status?: number }) => {
      if (res.headersSent) return void res.end();
      if (err.status) return rpcError(res, err.status, -32700, err.message);
      log.error({ err }, 'http request failed');
      rpcError(res, 500, -32603, 'Internal error.');
    });
  });

  const sweeper = setInterval(() => {
    const cutoff = Date.now() - SESSION_IDLE_MS;
    for (const [id, s] of sessions) if (s.lastSeen < cutoff) void s.transport.close().catch(() => {}), sessions.delete(id);
  }, 60_000);
  sweeper.unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const baseUrl = `http://${hostForUrl}:${address.port}`;
  log.info({ url: `${baseUrl}/mcp` }, 'listening');
  return {
    baseUrl,
    mcpUrl: `${baseUrl}/mcp`,
    sessionCount: () => sessions.size,
    async close() {
      clearInterval(sweeper);
      for (const s of sessions.values()) await s.transport.close().catch(() => {});
      sessions.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
