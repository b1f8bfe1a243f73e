import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractiveSummary, sentences } from '../../src/services/summarize.js';

test('the extractive summary keeps representative sentences in order and skips repeats', () => {
  const texts = [
    'Backups run nightly at 02:00 UTC. The weather was nice that day.',
    'Backups run nightly at 02:00 UTC. Backups are kept for 30 days in S3.',
    'Backups run nightly at 02:00 UTC.',
  ];
  const s = extractiveSummary(texts, 75);
  assert.equal(s.sentences, 5);
  assert.equal(s.text.split('Backups run nightly at 02:00 UTC.').length, 2, 'the repeated sentence appears once');
  assert.match(s.text, /^Backups run nightly at 02:00 UTC\./, 'the most shared sentence leads, in original order');
  assert.ok(s.text.length <= 75);
  assert.doesNotMatch(s.text, /weather/, 'an off-topic sentence loses to the budget');
});

test('sentences split on end punctuation and line breaks; empty input gives an empty summary', () => {
  assert.deepEqual(sentences('One. Two!\nThree? four'), ['One.', 'Two!', 'Three?', 'four']);
  assert.deepEqual(extractiveSummary(['', '  ']), { text: '', chosen: [], sentences: 0 });
});
