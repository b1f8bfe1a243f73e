import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ERROR_REGISTRY } from '../errors.js';
import type { Logger } from '../log.js';
import { checkBearer, LOOPBACK_HOSTS, originAllowed, wwwAuthenticate, type HttpSecurity } from './http-security.js';

/**
 * The one HTTP front end. It owns what every transport shares (the socket, the Host check, the
 * body limit, `/healthz`, error answers) and dispatches through a route table; each transport is
 * a file that exports its routes, so adding one is that file plus one line where the server is
 * started. Nothing here knows which transports exist.
 */

// Content may be 65,536 characters of 4-byte UTF-8 plus JSON escaping: leave ample room.
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
// How much of a refused body we read and discard before dropping the connection instead.
const DISCARD_LIMIT_BYTES = 8 * MAX_BODY_BYTES;

export interface RequestContext {
  /** The path without the query string, e.g. `/mcp`. */
  path: string;
  query: URLSearchParams;
  log: Logger;
  /** Reads and parses the body as JSON within the body limit (once); throws HttpError 413 or 400. */
  readJson(): Promise<unknown>;
}

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** An exact path (`/mcp`), or a prefix ending in `/*` (`/api/*` matches `/api/jobs/1`). */
  path: string;
  handler(req: IncomingMessage, res: ServerResponse, ctx: RequestContext): Promise<void> | void;
  /**
   * JSON-RPC endpoints answer the server's own errors (413, 400, 405…) as JSON-RPC error
   * objects with no id, which is what the MCP transports' clients expect; others get HTTP errors.
   */
  jsonRpc?: boolean;
  /** Answered without the bearer token (only `/healthz`: a liveness probe carries no secrets). */
  public?: boolean;
}

/** One transport mounted on the server: its routes, plus what the server needs to manage it. */
export interface HttpTransport {
  routes: Route[];
  /** Open client sessions; the stdio owner stays up while relayed clients are connected. */
  sessionCount?(): number;
  /** Ends the transport's sessions; called before the socket closes. */
  close?(): Promise<void>;
}

export interface HttpServer {
  /** e.g. http://127.0.0.1:7411 */
  baseUrl: string;
  sessionCount(): number;
  close(): Promise<void>;
}

/** An error answered to the client as is: its status, a stable code and a message meant for people. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
    /** Sent as the JSON-RPC error's `data` (or next to the message for other routes), e.g. `retry_after_ms`. */
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** Checked for every request to a protected route (rate limits, ./rate-limit.ts); throws an HttpError to refuse it. */
export interface RequestLimiter {
  check(req: IncomingMessage, query: URLSearchParams): void;
}

/** Takes a place for a protected request (./in-flight.ts), or throws an HttpError; answers how to give it back, or null. */
export interface RequestAdmission {
  admit(req: IncomingMessage, query: URLSearchParams): (() => void) | null;
}

/** Socket-level bounds (config: CONTEXT_GRAPH_HTTP_*). */
export interface ConnectionLimits {
  /** A client must have sent all request headers within this (slow-header sockets are closed). */
  headersTimeoutMs: number;
  /** ... and the whole request, body included, within this. */
  requestTimeoutMs: number;
  /** Open connections one client address may hold; beyond it new ones are closed at once. */
  maxConnectionsPerClient: number;
}

// JSON-RPC has a code for unparsable input and one for internal errors; the MCP SDK answers
// every other transport-level refusal with -32000, and so do we.
// Codes of the error registry (e.g. SSE_SESSION_EXPIRED) keep their registered JSON-RPC code.
const JSON_RPC_CODE: Record<string, number> = { INVALID_JSON: -32700, INTERNAL: -32603 };
const REGISTERED = ERROR_REGISTRY as Record<string, { rpcCode: number } | undefined>;

/**
 * Rejects requests whose Host header is not this server: a web page cannot reach a loopback
 * server through DNS rebinding, because its requests carry the attacker's host name.
 */
function hostAllowed(req: IncomingMessage, bindHost: string): boolean {
  const header = req.headers.host;
  if (!header) return false;
  const host = header.startsWith('[') ? header.slice(0, header.indexOf(']') + 1) : header.split(':')[0]!;
  if (LOOPBACK_HOSTS.has(bindHost)) return LOOPBACK_HOSTS.has(host);
  return bindHost === '0.0.0.0' || bindHost === '::' || host === bindHost || LOOPBACK_HOSTS.has(host);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
}

function sendError(res: ServerResponse, err: HttpError, jsonRpc: boolean): void {
  const body = jsonRpc
    ? {
        jsonrpc: '2.0',
        error: { code: JSON_RPC_CODE[err.code] ?? REGISTERED[err.code]?.rpcCode ?? -32000, message: err.message, ...(err.data ? { data: { code: err.code, ...err.data } } : {}) },
        id: null,
      }
    : { statusCode: err.status, code: err.code, error: STATUS_CODES[err.status] ?? 'Error', message: err.message, ...err.data };
  sendJson(res, err.status, body, err.headers);
}

function pathMatches(pattern: string, path: string): boolean {
  return pattern.endsWith('/*') ? path.startsWith(pattern.slice(0, -1)) : pattern === path;
}

function readJsonBody(req: IncomingMessage): Promise<unknown> {
  // Events rather than `for await`: leaving that loop early destroys the socket, and with it
  // the 413 answer we still want to send.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) return reject(tooLarge());
      chunks.push(chunk);
    });
    req.once('error', reject);
    req.once('end', () => {
      if (size > MAX_BODY_BYTES) return;
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        reject(new HttpError(400, 'INVALID_JSON', 'The request body is not valid JSON.'));
      }
    });
  });
}

function tooLarge(): HttpError {
  return new HttpError(413, 'BODY_TOO_LARGE', `The request body exceeds ${MAX_BODY_BYTES} bytes.`);
}

/**
 * Reads the rest of a refused body and throws it away. Closing at once would be cheaper, but a
 * client still sending gets a reset, and the reset can destroy the 413 before the client reads
 * it; so we drain, up to a bound past which the sender gets the reset anyway.
 */
function discardBody(req: IncomingMessage): void {
  let discarded = 0;
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DISCARD_LIMIT_BYTES) req.socket.destroy();
  });
  req.resume();
}

export async function startHttpServer(opts: {
  host: string;
  port: number;
  logger: Logger;
  /** Answers `GET /healthz`. */
  health(): Promise<unknown>;
  transports: HttpTransport[];
  /** Token and Origin policy for every route (src/transports/http-security.ts); none by default. */
  security?: HttpSecurity;
  /** Rate limits of protected routes; none by default. */
  limiter?: RequestLimiter;
  connections?: ConnectionLimits;
  /** Caps on requests in flight per client and per session; none by default. */
  inFlight?: RequestAdmission;
}): Promise<HttpServer> {
  const log = opts.logger.child({ transport: 'http' });
  // 503 when the product cannot serve (the report says `down`), so load balancers route around it.
  const healthRoute: Route = {
    method: 'GET',
    path: '/healthz',
    handler: async (_req, res) => {
      const report = await opts.health();
      sendJson(res, (report as { status?: unknown } | null)?.status === 'down' ? 503 : 200, report);
    },
    public: true,
  };
  const routes = [healthRoute, ...opts.transports.flatMap((t) => t.routes)];
  const seen = new Set<string>();
  for (const r of routes) {
    // Two transports claiming one path would otherwise shadow each other without a word.
    const key = `${r.method} ${r.path}`;
    if (seen.has(key)) throw new Error(`two HTTP routes for ${key}`);
    seen.add(key);
  }

  /** Routes are checked before they are looked up, so a caller without the token learns nothing. */
  function authorize(req: IncomingMessage, atPath: Route[]): void {
    const token = opts.security?.token;
    if (!token || (atPath.length > 0 && atPath.every((r) => r.public))) return;
    const verdict = checkBearer(req, token);
    if (verdict === 'ok') return;
    const message = verdict === 'missing' ? 'Unauthorized: send Authorization: Bearer <token>.' : 'Unauthorized: the bearer token is not valid.';
    throw new HttpError(401, 'UNAUTHORIZED', message, { 'www-authenticate': wwwAuthenticate(verdict) });
  }

  async function dispatch(req: IncomingMessage, res: ServerResponse, path: string, query: string): Promise<void> {
    const atPath = routes.filter((r) => pathMatches(r.path, path));
    const jsonRpc = atPath.some((r) => r.jsonRpc);
    try {
      if (!hostAllowed(req, opts.host)) throw new HttpError(403, 'FORBIDDEN_HOST', 'Forbidden: unexpected Host header.');
      if (!originAllowed(req, opts.security?.allowedOrigins ?? [])) throw new HttpError(403, 'FORBIDDEN_ORIGIN', 'Forbidden: this Origin may not use the server.');
      authorize(req, atPath);
      if (atPath.length === 0) throw new HttpError(404, 'NOT_FOUND', `No route for ${req.method} ${path}.`);
      const route = atPath.find((r) => r.method === req.method);
      if (!route) {
        const allow = [...new Set(atPath.map((r) => r.method))].join(', ');
        throw new HttpError(405, 'METHOD_NOT_ALLOWED', `${path} accepts ${allow}, not ${req.method}.`, { allow });
      }
      const params = new URLSearchParams(query);
      if (!route.public) opts.limiter?.check(req, params);
      // Requests in flight per client and per session (./in-flight.ts): the place is given back when the answer is done.
      const release = route.public ? null : (opts.inFlight?.admit(req, params) ?? null);
      if (release) res.once('close', release);
      if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) throw tooLarge();
      await route.handler(req, res, { path, query: params, log, readJson: () => readJsonBody(req) });
    } catch (err) {
      // Nothing useful can still be said: the answer has begun, or the client has gone.
      if (res.headersSent || req.socket.destroyed) return void res.end();
      if (err instanceof HttpError) {
        if (err.status === 413) discardBody(req);
        return sendError(res, err, jsonRpc);
      }
      log.error({ err }, 'http request failed');
      sendError(res, new HttpError(500, 'INTERNAL', 'Internal error.'), jsonRpc);
    }
  }

  const limits = opts.connections;
  // Slow sockets are found by Node's periodic check: often enough that they go soon after their deadline.
  const checkEvery = limits ? Math.max(100, Math.min(limits.headersTimeoutMs / 4, 1_000)) : undefined;
  const server: Server = createServer(
    limits ? { headersTimeout: limits.headersTimeoutMs, requestTimeout: limits.requestTimeoutMs, connectionsCheckingInterval: checkEvery } : {},
    (req, res) => {
      // Split by hand: `new URL` would read a request target like `//evil/mcp` as a host name.
      const target = req.url ?? '/';
      const q = target.indexOf('?');
      void dispatch(req, res, q < 0 ? target : target.slice(0, q), q < 0 ? '' : target.slice(q + 1));
    },
  );

  if (limits) limitConnectionsPerClient(server, limits.maxConnectionsPerClient, log);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const baseUrl = `http://${hostForUrl}:${address.port}`;
  log.info({ url: baseUrl, routes: routes.map((r) => `${r.method} ${r.path}`) }, 'listening');
  return {
    baseUrl,
    sessionCount: () => opts.transports.reduce((n, t) => n + (t.sessionCount?.() ?? 0), 0),
    async close() {
      for (const t of opts.transports) await t.close?.();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One client address cannot hold every socket: past its share, its new connections are closed at once. */
function limitConnectionsPerClient(server: Server, max: number, log: Logger): void {
  const open = new Map<string, number>();
  let refused = 0;
  server.on('connection', (socket) => {
    const client = socket.remoteAddress ?? 'unknown';
    const n = open.get(client) ?? 0;
    if (n >= max) {
      if (refused++ % 1_000 === 0) log.warn({ client, max, refused }, 'connection refused: too many open connections from this client');
      socket.destroy();
      return;
    }
    open.set(client, n + 1);
    socket.once('close', () => {
      const left = (open.get(client) ?? 1) - 1;
      if (left <= 0) open.delete(client);
      else open.set(client, left);
    });
  });
}
