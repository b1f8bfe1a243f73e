import { createHash } from 'node:crypto';
import { readFile, realpath } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, posix, sep } from 'node:path';
import { packageRoot } from '../paths.js';
import { HttpError, type HttpTransport } from './http-server.js';

/**
 * The memory explorer (`/ui`): plain ES modules, CSS and SVG from the package's `ui/` folder,
 * served as they are (no build step, nothing fetched from elsewhere at run time). The files are
 * public like `/healthz` (a browser's navigation cannot carry a bearer token, and they hold no
 * data); the page then calls `/api/tool` with the token the user gives it.
 */
export const UI_PATH = '/ui';

/** Folder of the page's files: `ui/` next to package.json, in a checkout and in the installed package. */
export function uiRoot(): string {
  return join(packageRoot(), 'ui');
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};

/**
 * Only this origin's own files and API: no inline script or style, nothing remote, no frames, no
 * plugins. A memory text that somehow became markup still could not run.
 */
export const UI_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': UI_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

function notFound(path: string): HttpError {
  return new HttpError(404, 'NOT_FOUND', `No file ${path} in the explorer.`);
}

/**
 * The file a request path names inside `root`, or a 404: percent-decoding first, then no NUL, no
 * `..` segment, no dot-file, an extension we serve, and the real path (symlinks resolved) still
 * inside the folder.
 */
export async function resolveUiFile(root: string, requestPath: string): Promise<string> {
  let rel: string;
  try {
    rel = decodeURIComponent(requestPath.slice(UI_PATH.length + 1));
  } catch {
    throw new HttpError(400, 'BAD_PATH', 'The path is not valid percent-encoding.');
  }
  if (rel === '' || rel.endsWith('/')) rel += 'index.html';
  const segments = rel.split(/[\\/]/);
  if (rel.includes('\0') || segments.some((s) => s === '..' || s.startsWith('.')) || posix.isAbsolute(rel) || /^[a-z]:/i.test(rel)) throw notFound(requestPath);
  if (!(extname(rel).toLowerCase() in CONTENT_TYPES)) throw notFound(requestPath);
  const realRoot = await realpath(root);
  let file: string;
  try {
    file = await realpath(join(realRoot, ...segments));
  } catch {
    throw notFound(requestPath);
  }
  if (!file.startsWith(realRoot + sep)) throw notFound(requestPath);
  return file;
}

export function uiStatic(root: string = uiRoot()): HttpTransport {
  async function serveFile(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const file = await resolveUiFile(root, path);
    let body: Buffer;
    try {
      body = await readFile(file);
    } catch {
      throw notFound(path);
    }
    // Revalidated on every load (an upgrade shows at once), answered 304 when unchanged.
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    const headers = { ...SECURITY_HEADERS, etag, 'cache-control': 'no-cache' };
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, headers);
      return void res.end();
    }
    res.writeHead(200, { ...headers, 'content-type': CONTENT_TYPES[extname(file).toLowerCase()]!, 'content-length': String(body.length) });
    res.end(body);
  }
  return {
    routes: [
      {
        method: 'GET',
        path: UI_PATH,
        // Relative module URLs resolve against /ui/, so the page lives there.
        handler: (_req, res) => {
          res.writeHead(308, { location: `${UI_PATH}/`, 'cache-control': 'no-cache' });
          res.end();
        },
        public: true,
      },
      { method: 'GET', path: `${UI_PATH}/*`, handler: (req, res, ctx) => serveFile(req, res, ctx.path), public: true },
    ],
  };
}
