import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';

/**
 * Who may talk to the HTTP front end: an optional bearer token (checked for every route the
 * route table does not mark public, so every transport and the REST gateway get it alike), the
 * browser Origin (DNS rebinding), and whether a non-loopback bind is allowed at all.
 */

export interface HttpSecurity {
  /** Every non-public request must carry `Authorization: Bearer <token>`; null means no auth. */
  token: string | null;
  /** Browser origins allowed besides loopback ones (`scheme://host[:port]`, no trailing slash). */
  allowedOrigins: readonly string[];
}

export const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** The token from the setting, or the first line of the token file; null when neither is set. */
export function resolveAuthToken(settings: { authToken?: string | undefined; authTokenFile?: string | undefined }): string | null {
  if (settings.authToken) return settings.authToken;
  if (!settings.authTokenFile) return null;
  const token = readFileSync(settings.authTokenFile, 'utf8').split(/\r?\n/)[0]!.trim();
  if (token.length < 16) throw new Error(`the token in ${settings.authTokenFile} is shorter than 16 characters`);
  return token;
}

/**
 * Binding beyond loopback without a token would hand the memory to the network: refused unless
 * the operator says so explicitly. Returns the refusal message, or null when the bind is fine.
 */
export function bindRefusal(host: string, token: string | null, allowInsecure: boolean): string | null {
  if (LOOPBACK_HOSTS.has(host) || token || allowInsecure) return null;
  return `refusing to listen on ${host} without a token: anyone who can reach it could read and change the memory. Set CONTEXT_GRAPH_AUTH_TOKEN (or --auth-token / --auth-token-file), or pass --allow-insecure-bind true if a proxy in front does the authentication.`;
}

// Hashing first gives both sides one length, so the comparison time says nothing about the token.
function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** 'ok', or why the request is refused: no credentials at all, or the wrong ones. */
export function checkBearer(req: IncomingMessage, token: string): 'ok' | 'missing' | 'invalid' {
  const header = req.headers.authorization;
  if (!header) return 'missing';
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) return 'invalid';
  return timingSafeEqual(digest(m[1]!), digest(token)) ? 'ok' : 'invalid';
}

export function wwwAuthenticate(reason: 'missing' | 'invalid'): string {
  return reason === 'missing' ? 'Bearer realm="context-graph"' : 'Bearer realm="context-graph", error="invalid_token"';
}

/**
 * Requests without an Origin header come from programs, not browsers, and pass. A browser's
 * Origin must be a loopback page or one the operator listed: a page on another site cannot
 * drive the server even when the Host check passes (a proxy rewriting Host, a 0.0.0.0 bind).
 */
export function originAllowed(req: IncomingMessage, allowed: readonly string[]): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  if (allowed.includes(origin.replace(/\/$/, ''))) return true;
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname);
  } catch {
    return false;
  }
}
