import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ERROR_REGISTRY, TOOL_ERROR_CODES } from '../../src/errors.js';
import { REST_ERROR_CODES, restErrorOf } from '../../src/errors-rest.js';

test('every tool error code has a REST spelling of seed 002 §5 (or the gateway own codes) and keeps its HTTP status', () => {
  for (const code of TOOL_ERROR_CODES) {
    const r = restErrorOf({ code, details: undefined });
    assert.ok((REST_ERROR_CODES as readonly string[]).includes(r.code), `${code} → ${r.code}`);
    assert.equal(r.status, ERROR_REGISTRY[code].httpStatus, code);
  }
});

test('seed 002 §5 codes come from the registry codes that mean them', () => {
  const rest = (code: (typeof TOOL_ERROR_CODES)[number], details?: Record<string, unknown>) => restErrorOf({ code, details }).code;
  assert.equal(rest('INVALID_PARAMS', { issues: [{ path: 'what', missing: true }] }), 'REQUIRED_FIELD_MISSING');
  assert.equal(rest('INVALID_PARAMS', { issues: [{ path: 'what', missing: true }, { path: 'limit' }] }), 'INVALID_FIELD_FORMAT', 'one malformed field makes it a format error');
  assert.equal(rest('INVALID_PARAMS', { issues: [] }), 'INVALID_FIELD_FORMAT');
  assert.equal(rest('NODE_NOT_FOUND'), 'ENTITY_NOT_FOUND');
  assert.equal(rest('PARENT_NOT_FOUND'), 'PARENT_NOT_FOUND');
  assert.equal(rest('CONFLICT'), 'DUPLICATE_ID');
  assert.equal(rest('VERSION_CONFLICT'), 'VALIDATION_FAILED');
  assert.equal(rest('VALIDATION_FAILED'), 'VALIDATION_FAILED');
  assert.equal(rest('DB_UNAVAILABLE'), 'DATABASE_ERROR');
  assert.equal(rest('UNKNOWN_TOOL'), 'TOOL_NOT_FOUND');
  assert.equal(rest('INTERNAL'), 'INTERNAL_ERROR');
});
