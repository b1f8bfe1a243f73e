import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeTime, ulid } from 'ulid';
import { CITATION_PATTERN, citation, hexToUlid, isUlid, newId, toNodeId, ulidToHex, uuidOf } from '../../src/ids.js';

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

test('new ids are ULIDs of this moment, and their random parts do not repeat across pool refills', () => {
  const before = Date.now();
  // 10,000 ids draw 160,000 random characters: the 4 KB pool is refilled about 40 times.
  const ids = Array.from({ length: 10_000 }, () => newId());
  const after = Date.now();
  assert.ok(ids.every(isUlid));
  assert.equal(new Set(ids.map((id) => id.slice(10))).size, ids.length);
  for (const id of [ids[0]!, ids[ids.length - 1]!]) {
    const at = decodeTime(id);
    assert.ok(at >= before && at <= after, `${id} carries time ${at}, not within ${before}–${after}`);
  }
  // Every one of the 32 characters turns up in the random part: the bytes are spread over all of them.
  assert.equal(new Set(ids.join('').slice(0, 5_000)).size, 32);
});
