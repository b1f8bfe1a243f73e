import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ulid } from 'ulid';
import { CITATION_PATTERN, citation, hexToUlid, toNodeId, ulidToHex, uuidOf } from '../../src/ids.js';

test('a ULID, its citation hex and its UUID form are the same 128 bits', () => {
  for (let i = 0; i < 200; i++) {
    const id = ulid();
    const hex = ulidToHex(id);
    assert.match(hex, /^[0-9a-f]{32}$/);
    assert.equal(hexToUlid(hex), id);
    assert.match(citation(id), CITATION_PATTERN);
    for (const form of [id, id.toLowerCase(), hex, `node_${hex}`, `[node_${hex}]`, uuidOf(id), uuidOf(id).toUpperCase()]) assert.equal(toNodeId(form), id, form);
  }
  assert.equal(ulidToHex('7ZZZZZZZZZZZZZZZZZZZZZZZZZ'), 'f'.repeat(32));
  assert.equal(citation('00000000000000000000000000'), `[node_${'0'.repeat(32)}]`);
});

test('anything else is left as given, so the lookup answers NODE_NOT_FOUND', () => {
  assert.equal(toNodeId('not-an-id'), 'not-an-id');
  assert.equal(toNodeId('[node_abc123]'), '[node_abc123]');
});
