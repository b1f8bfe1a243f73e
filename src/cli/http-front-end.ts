import type { App } from '../app.js';
import { startHttpServer, type HttpServer } from '../transports/http-server.js';
import { resolveAuthToken } from '../transports/http-security.js';
import { InFlightLimits } from '../transports/in-flight.js';
import { legacySse } from '../transports/legacy-sse.js';
import { RateLimits } from '../transports/rate-limit.js';
import { restGateway } from '../transports/rest-gateway.js';
import { SessionLimits } from '../transports/session-limits.js';
import { streamableHttp } from '../transports/streamable-http.js';
import { uiStatic } from '../transports/ui-static.js';

/**
 * The HTTP front end with every transport mounted. A new transport is its file in
 * src/transports/ plus one entry in this list.
 */
export function startHttp(app: App, host: string, port: number): Promise<HttpServer> {
  const security = { token: resolveAuthToken(app.config), allowedOrigins: app.config.allowedOrigins };
  // One count for /mcp and /sse together.
  const limits = SessionLimits.fromConfig(app.config);
  return startHttpServer({
    host,
    port,
    logger: app.logger,
    health: () => app.health(),
    transports: [streamableHttp(app, limits), restGateway(app), legacySse(app, { heartbeatMs: app.config.sseHeartbeatMs, graceMs: app.config.sseGraceMs, limits }), uiStatic()],
    security,
    limiter: RateLimits.fromConfig(app.config),
    inFlight: InFlightLimits.fromConfig(app.config),
    connections: {
      headersTimeoutMs: Math.min(app.config.httpHeadersTimeoutMs, app.config.httpRequestTimeoutMs),
      requestTimeoutMs: app.config.httpRequestTimeoutMs,
      maxConnectionsPerClient: app.config.maxConnectionsPerClient,
    },
  });
}
