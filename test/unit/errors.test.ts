import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as z from 'zod';
import { AppError, ERROR_REGISTRY, JsonRpcError, TOOL_ERROR_CODES } from '../../src/errors.js';
import { QueueUnavailableError } from '../../src/jobs/bullmq.js';
import { createLogger } from '../../src/log.js';
import { toErrorPayload } from '../../src/errors.js';
import { toolErrorSchema } from '../../src/tools/kit/payloads.js';
import { translateDbError } from '../../src/store/errors.js';

const logger = createLogger('silent');

test('the registry pins its codes: numeric codes are unique within a channel and seed 001 §5 and MCP codes keep their numbers', () => {
  for (const channel of ['tool', 'jsonrpc'] as const) {
    const rpc = Object.values(ERROR_REGISTRY)
      .filter((e) => e.channel === channel)
      .map((e) => e.rpcCode);
    assert.equal(new Set(rpc).size, rpc.length, channel);
  }
  // Seed 001 fixes -32002 for INVALID_PARAMS in tool errors; MCP fixes it for resource-not-found
  // in JSON-RPC errors. Both hold, each in its own channel.
  assert.deepEqual([ERROR_REGISTRY.INVALID_PARAMS.channel, ERROR_REGISTRY.INVALID_PARAMS.rpcCode], ['tool', -32002]);
  assert.deepEqual([ERROR_REGISTRY.RESOURCE_NOT_FOUND.channel, ERROR_REGISTRY.RESOURCE_NOT_FOUND.rpcCode], ['jsonrpc', -32002]);
  assert.equal(ERROR_REGISTRY.NODE_NOT_FOUND.rpcCode, -32012);
  // Seed 001 §5 fixes these numbers.
  assert.deepEqual(
    (
      ['MISSING_RATIONALE', 'PRIORS_INCOMPATIBLE', 'RECOVERY_WINDOW_EXPIRED', 'CIRCULAR_DEPENDENCY', 'TOMBSTONE_EXISTS', 'SEMANTIC_CANCER_DETECTED', 'SSE_SESSION_EXPIRED'] as const
    ).map((c) => ERROR_REGISTRY[c].rpcCode),
    [-32009, -32010, -32011, -32013, -32014, -32015, -32016],
  );
  assert.deepEqual(Object.keys(ERROR_REGISTRY).sort(), [
    'ALREADY_APPLIED',
    'BUSY',
    'CIRCULAR_DEPENDENCY',
    'CONFLICT',
    'DB_UNAVAILABLE',
    'IDEMPOTENCY_KEY_REUSED',
    'INTERNAL',
    'INVALID_PARAMS',
    'JOB_CANCELLED',
    'JOB_FAILED',
    'JOB_NOT_FOUND',
    'MANIFEST_NOT_FOUND',
    'MISSING_RATIONALE',
    'NODE_NOT_FOUND',
    'PARENT_NOT_FOUND',
    'PATH_NOT_ALLOWED',
    'PRIORS_INCOMPATIBLE',
    'QUEUE_UNAVAILABLE',
    'RATE_LIMITED',
    'RECOVERY_WINDOW_EXPIRED',
    'RESOURCE_NOT_FOUND',
    'SCRATCHPAD_FULL',
    'SEMANTIC_CANCER_DETECTED',
    'SESSION_REQUIRED',
    'SSE_SESSION_EXPIRED',
    'SUBSCRIPTIONS_FULL',
    'TOMBSTONE_EXISTS',
    'TOOLSET_DISABLED',
    'UNKNOWN_TOOL',
    'VALIDATION_FAILED',
    'VECTORS_PENDING',
    'VERSION_CONFLICT',
  ]);
  assert.deepEqual([...TOOL_ERROR_CODES].sort(), [
    'ALREADY_APPLIED',
    'BUSY',
    'CIRCULAR_DEPENDENCY',
    'CONFLICT',
    'DB_UNAVAILABLE',
    'IDEMPOTENCY_KEY_REUSED',
    'INTERNAL',
    'INVALID_PARAMS',
    'JOB_CANCELLED',
    'JOB_FAILED',
    'JOB_NOT_FOUND',
    'MANIFEST_NOT_FOUND',
    'MISSING_RATIONALE',
    'NODE_NOT_FOUND',
    'PARENT_NOT_FOUND',
    'PATH_NOT_ALLOWED',
    'PRIORS_INCOMPATIBLE',
    'QUEUE_UNAVAILABLE',
    'RATE_LIMITED',
    'RECOVERY_WINDOW_EXPIRED',
    'SCRATCHPAD_FULL',
    'SEMANTIC_CANCER_DETECTED',
    'SESSION_REQUIRED',
    'SSE_SESSION_EXPIRED',
    'TOMBSTONE_EXISTS',
    'TOOLSET_DISABLED',
    'UNKNOWN_TOOL',
    'VALIDATION_FAILED',
    'VECTORS_PENDING',
    'VERSION_CONFLICT',
  ]);
  // A tool payload never carries a JSON-RPC-channel code.
  assert.equal(toolErrorSchema.safeParse({ kind: 'toolError:v1', code: 'RESOURCE_NOT_FOUND', rpc_code: -32002, message: 'x', retryable: false, hint: 'x' }).success, false);
});

test('a JSON-RPC error carries its bare message, so the client prefixes "MCP error <code>:" once', () => {
  const e = JsonRpcError.of('RESOURCE_NOT_FOUND', 'Resource not found: knowledge://x.', { uri: 'knowledge://x' });
  assert.equal(e.code, -32002);
  assert.equal(e.message, 'Resource not found: knowledge://x.');
  assert.deepEqual(e.data, { code: 'RESOURCE_NOT_FOUND', hint: ERROR_REGISTRY.RESOURCE_NOT_FOUND.hint, uri: 'knowledge://x' });
});

test('dependency failures map to retryable registry errors without internals', () => {
  const refused = translateDbError(Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432 password=hunter2'), { code: 'ECONNREFUSED' }), {
    sql: 'select secret from t',
    params: ['x'],
  });
  const db = toErrorPayload(refused, logger);
  assert.equal(db.code, 'DB_UNAVAILABLE');
  assert.equal(db.retryable, true);
  const serialization = toErrorPayload(translateDbError(Object.assign(new Error('could not serialize access'), { code: '40001' })), logger);
  assert.equal(serialization.code, 'BUSY');
  assert.equal(serialization.retryable, true);
  const queue = toErrorPayload(new QueueUnavailableError('redis://127.0.0.1:1'), logger);
  assert.equal(queue.code, 'QUEUE_UNAVAILABLE');
  assert.equal(queue.retryable, true);
  for (const p of [db, serialization, queue]) {
    toolErrorSchema.parse(p);
    assert.ok(!/hunter2|10\.0\.0\.5|select|ECONNREFUSED/.test(JSON.stringify(p)), JSON.stringify(p));
  }
});

test('an unexpected error reaches the client only as a correlation id', () => {
  const p = toErrorPayload(new TypeError("Cannot read properties of undefined (reading 'nid') at /work/main/dist/src/x.js:1:2"), logger);
  assert.equal(p.code, 'INTERNAL');
  assert.equal(p.retryable, false);
  assert.match(p.message, /^Internal error \(correlation id [0-9a-f-]{36}\)\.$/);
  assert.equal(p.details?.correlation_id, p.message.slice(p.message.indexOf('id ') + 3, -2));
});

test('zod failures and domain errors keep their code and details', () => {
  const parsed = z.strictObject({ limit: z.number().int().max(50) }).safeParse({ limit: 51, colour: 1 });
  assert.ok(!parsed.success);
  const p = toErrorPayload(parsed.error, logger, { tool: 'query' });
  assert.equal(p.code, 'INVALID_PARAMS');
  assert.ok(p.message.includes('limit') && p.message.includes('colour'));
  const nf = toErrorPayload(new AppError('NODE_NOT_FOUND', 'No entry 01X.', { id: '01X' }), logger);
  assert.deepEqual([nf.code, nf.rpc_code, nf.details], ['NODE_NOT_FOUND', -32012, { id: '01X' }]);
});
