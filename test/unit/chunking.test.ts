import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chunkText, countTokens } from '../../src/services/chunking.js';

test('counts words and punctuation as tokens', () => {
  assert.equal(countTokens("Don't panic, it's fine."), 6);
  assert.equal(countTokens(''), 0);
});

test('packs whole sentences up to the budget and never exceeds it', () => {
  const text = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} talks about topic ${i % 7}.`).join(' ');
  const chunks = chunkText(text, 30);
  assert.ok(chunks.length > 5);
  for (const c of chunks) {
    assert.ok(c.tokens <= 30, `chunk ${c.index} has ${c.tokens} tokens`);
    assert.match(c.text, /\.$/, 'chunks end at a sentence boundary');
  }
  // Nothing lost, nothing duplicated.
  assert.equal(
    chunks
      .map((c) => c.text)
      .join(' ')
      .replace(/\s+/g, ' '),
    text,
  );
  assert.deepEqual(
    chunks.map((c) => c.index),
    chunks.map((_, i) => i),
  );
});

test('a sentence longer than the budget is split on words', () => {
  const long = Array.from({ length: 100 }, (_, i) => `w${i}`).join(' ');
  const chunks = chunkText(long, 25);
  assert.equal(chunks.length, 4);
  assert.ok(chunks.every((c) => c.tokens <= 25));
});

test('deterministic: the same input gives the same chunks', () => {
  const text = 'Alpha beta. Gamma delta epsilon! Zeta? Eta theta iota.\nKappa lambda';
  assert.deepEqual(chunkText(text, 4), chunkText(text, 4));
  assert.deepEqual(chunkText('   ', 10), []);
});
