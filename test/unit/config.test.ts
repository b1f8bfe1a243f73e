import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig, splitConfigFlags } from '../../src/config.js';

test('defaults: embedded store, in-process queue, loopback on 7411', () => {
  const c = loadConfig({});
  assert.equal(c.dataDir, resolve('./.context-graph'));
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.port, 7411);
  assert.equal(c.databaseUrl, undefined);
  assert.equal(c.redisUrl, undefined);
  assert.equal(c.logLevel, 'info');
});

test('environment variables are read, and empty ones count as unset', () => {
  const c = loadConfig({ CONTEXT_GRAPH_PORT: '8000', DATABASE_URL: '', REDIS_URL: 'redis://127.0.0.1:6379', LOG_LEVEL: 'debug' });
  assert.equal(c.port, 8000);
  assert.equal(c.databaseUrl, undefined);
  assert.equal(c.redisUrl, 'redis://127.0.0.1:6379');
  assert.equal(c.logLevel, 'debug');
});

test('flags win over the environment', () => {
  const { values, rest } = splitConfigFlags(['--port', '9000', '--data-dir=/tmp/x', 'extra']);
  const c = loadConfig({ CONTEXT_GRAPH_PORT: '8000' }, values);
  assert.equal(c.port, 9000);
  assert.equal(c.dataDir, '/tmp/x');
  assert.deepEqual(rest, ['extra']);
});

test('an invalid value names the variable it came from', () => {
  assert.throws(
    () => loadConfig({ CONTEXT_GRAPH_PORT: 'http' }),
    (e: Error) => e instanceof ConfigError && e.message.includes('CONTEXT_GRAPH_PORT'),
  );
  assert.throws(() => loadConfig({ DATABASE_URL: 'mysql://x' }), /DATABASE_URL/);
  assert.throws(() => loadConfig({ LOG_LEVEL: 'loud' }), /LOG_LEVEL/);
  assert.throws(() => loadConfig({}, splitConfigFlags(['--port', '70000']).values), /--port/);
  assert.throws(() => splitConfigFlags(['--port']), /--port/);
});

test('the bearer token is also read from CONTEXT_GRAPH_TOKEN (the name issue 13 uses); CONTEXT_GRAPH_AUTH_TOKEN wins', () => {
  const token = 'alias-token-0123456789';
  assert.equal(loadConfig({ CONTEXT_GRAPH_TOKEN: token }).authToken, token);
  assert.equal(loadConfig({ CONTEXT_GRAPH_TOKEN_FILE: '/run/secrets/cg' }).authTokenFile, '/run/secrets/cg');
  assert.equal(loadConfig({ CONTEXT_GRAPH_TOKEN: token, CONTEXT_GRAPH_AUTH_TOKEN: 'primary-token-0123456789' }).authToken, 'primary-token-0123456789');
  assert.equal(loadConfig({ CONTEXT_GRAPH_TOKEN: '', CONTEXT_GRAPH_AUTH_TOKEN: '' }).authToken, undefined);
  // A bad value names the variable it was read from.
  assert.throws(() => loadConfig({ CONTEXT_GRAPH_TOKEN: 'short' }), /CONTEXT_GRAPH_TOKEN=/);
});
