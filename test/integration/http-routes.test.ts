import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '../../src/log.js';
import { HttpError, sendJson, startHttpServer, type HttpTransport } from '../../src/transports/http-server.js';

// The plug-in contract later transports (legacy SSE, REST) rely on, with a stand-in transport.
const logger = createLogger('silent');

function start(transports: HttpTransport[]) {
  return startHttpServer({ host: '127.0.0.1', port: 0, logger, health: async () => ({ status: 'ok' }), transports });
}

test('a transport plugs in by its routes: exact paths, /prefix/* paths, query and JSON body', async () => {
  let closed = 0;
  const api: HttpTransport = {
    routes: [
      { method: 'GET', path: '/api/*', handler: (_req, res, ctx) => sendJson(res, 200, { path: ctx.path, id: ctx.query.get('id') }) },
      { method: 'POST', path: '/echo', handler: async (_req, res, ctx) => sendJson(res, 200, { got: await ctx.readJson() }) },
      {
        method: 'GET',
        path: '/teapot',
        handler: () => {
          throw new HttpError(418, 'TEAPOT', 'Short and stout.');
        },
      },
      {
        method: 'GET',
        path: '/broken',
        handler: () => {
          throw new Error('secret detail at /srv/app.js:1');
        },
      },
    ],
    sessionCount: () => 3,
    close: async () => void closed++,
  };
  const http = await start([api]);
  try {
    assert.deepEqual(await (await fetch(`${http.baseUrl}/api/jobs/1?id=7`)).json(), { path: '/api/jobs/1', id: '7' });
    assert.equal((await fetch(`${http.baseUrl}/api`)).status, 404, '/api/* covers what is below /api only');
    const echo = await fetch(`${http.baseUrl}/echo`, { method: 'POST', body: '{"a":[1]}' });
    assert.deepEqual(await echo.json(), { got: { a: [1] } });
    const teapot = await fetch(`${http.baseUrl}/teapot`);
    assert.equal(teapot.status, 418);
    assert.deepEqual(await teapot.json(), { statusCode: 418, code: 'TEAPOT', error: "I'm a Teapot", message: 'Short and stout.' });
    const broken = await fetch(`${http.baseUrl}/broken`);
    assert.equal(broken.status, 500);
    assert.equal(await broken.text(), JSON.stringify({ statusCode: 500, code: 'INTERNAL', error: 'Internal Server Error', message: 'Internal error.' }));
    assert.equal((await fetch(`${http.baseUrl}/healthz`)).status, 200, '/healthz is always mounted');
    assert.equal(http.sessionCount(), 3);
  } finally {
    await http.close();
  }
  assert.equal(closed, 1, 'closing the server closes its transports');
});

test('two transports claiming the same method and path are refused at start', async () => {
  const mine: HttpTransport = { routes: [{ method: 'GET', path: '/healthz', handler: () => {} }] };
  await assert.rejects(start([mine]), /two HTTP routes for GET \/healthz/);
});
