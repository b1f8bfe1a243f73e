import assert from 'node:assert/strict';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../../src/log.js';
import { startHttpServer, type HttpServer } from '../../src/transports/http-server.js';
import { uiRoot, uiStatic, UI_CSP } from '../../src/transports/ui-static.js';
import { tempDir } from '../helpers/cli.js';

/** A raw GET: the request target goes out exactly as written (fetch would normalise `..`). */
function rawGet(baseUrl: string, target: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: target, method: 'GET', headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.once('error', reject);
    req.end();
  });
}

describe('the explorer files at /ui (served from the package, behind the token only for the API)', () => {
  let http: HttpServer;
  let fake: HttpServer;
  let dir: Awaited<ReturnType<typeof tempDir>>;

  before(async () => {
    const logger = createLogger('silent');
    const security = { token: 'static-route-test-token-0123456789', allowedOrigins: [] };
    http = await startHttpServer({ host: '127.0.0.1', port: 0, logger, health: async () => ({ status: 'ok' }), transports: [uiStatic()], security });
    // A folder whose symlink points outside it, and a secret beside it.
    dir = await tempDir('cg-ui-static-');
    await mkdir(join(dir.path, 'ui'));
    await writeFile(join(dir.path, 'secret.js'), 'the secret');
    await writeFile(join(dir.path, 'ui', 'index.html'), '<!doctype html><p>fake</p>');
    await writeFile(join(dir.path, 'ui', '.hidden.js'), 'dot file');
    await symlink(join(dir.path, 'secret.js'), join(dir.path, 'ui', 'link.js'));
    fake = await startHttpServer({ host: '127.0.0.1', port: 0, logger, health: async () => ({ status: 'ok' }), transports: [uiStatic(join(dir.path, 'ui'))] });
  });
  after(async () => {
    await http?.close();
    await fake?.close();
    await dir?.remove();
  });

  test('the shipped page, its modules and styles come with their content types, the CSP and revalidation headers, without a token', async () => {
    const redirect = await rawGet(http.baseUrl, '/ui');
    assert.equal(redirect.status, 308);
    assert.equal(redirect.headers.location, '/ui/');
    const page = await fetch(`${http.baseUrl}/ui/`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(page.headers.get('content-security-policy'), UI_CSP);
    assert.match(UI_CSP, /script-src 'self'(;|$)/);
    assert.doesNotMatch(UI_CSP, /unsafe-inline|unsafe-eval|https?:|\*/);
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(page.headers.get('cache-control'), 'no-cache');
    const html = await page.text();
    assert.match(html, /<script type="module" src="js\/main\.js"><\/script>/);
    assert.doesNotMatch(html, /<script>|<script [^>]*>[^<]|\son\w+=|https?:\/\//, 'no inline script, no handler attribute, nothing remote');
    for (const [path, type] of [
      ['/ui/js/main.js', 'text/javascript; charset=utf-8'],
      ['/ui/style.css', 'text/css; charset=utf-8'],
      ['/ui/icon.svg', 'image/svg+xml'],
    ] as const) {
      const res = await fetch(`${http.baseUrl}${path}`);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get('content-type'), type, path);
      const etag = res.headers.get('etag')!;
      assert.match(etag, /^"[\w-]{22}"$/);
      const again = await fetch(`${http.baseUrl}${path}`, { headers: { 'if-none-match': etag } });
      assert.equal(again.status, 304, `${path} unchanged: 304`);
    }
    assert.ok(uiRoot().endsWith('/ui'));
  });

  test('no path leaves the folder: .., encoded .., backslashes, absolute paths, dot-files, symlinks out, unknown types', async () => {
    const attempts = [
      '/ui/../package.json',
      '/ui/js/../../package.json',
      '/ui/%2e%2e/package.json',
      '/ui/..%2fpackage.json',
      '/ui/..%5cpackage.json',
      '/ui/%2e%2e%2f%2e%2e%2fpackage.json',
      '/ui/%2fetc%2fpasswd',
      '/ui//etc/passwd',
      '/ui/C:%5cWindows%5cwin.ini',
      '/ui/index.html%00.js',
      '/ui/.hidden.js',
      '/ui/README',
      '/ui/missing.js',
    ];
    for (const target of attempts) {
      const r = await rawGet(http.baseUrl, target);
      assert.equal(r.status, 404, `${target}: ${r.status} ${r.body.slice(0, 80)}`);
      assert.doesNotMatch(r.body, /"name": "context-graph"|root:/, target);
    }
    assert.equal((await rawGet(http.baseUrl, '/ui/%E0%A4%A')).status, 400, 'broken percent-encoding');
    assert.equal((await rawGet(fake.baseUrl, '/ui/')).body, '<!doctype html><p>fake</p>');
    assert.equal((await rawGet(fake.baseUrl, '/ui/link.js')).status, 404, 'a symlink pointing out of the folder is not followed');
    assert.equal((await rawGet(fake.baseUrl, '/ui/.hidden.js')).status, 404);
  });

  test('the files are public, but nothing else is: the API beside them still needs the token', async () => {
    assert.equal((await fetch(`${http.baseUrl}/ui/js/api.js`)).status, 200);
    const other = await fetch(`${http.baseUrl}/api/tool`, { method: 'POST' });
    assert.equal(other.status, 401);
  });
});
