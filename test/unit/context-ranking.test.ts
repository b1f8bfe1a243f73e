import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cueFactor, isWhenQuestion, namesSpeaker, questionWords, speakerOf, statesATime, SPEAKER_CUE_BOOST, TIME_CUE_BOOST } from '../../src/services/context-ranking.js';
import { matchStrength, MAXSIM_FLOOR, MAXSIM_RAMP, type Yardstick } from '../../src/services/fusion.js';

const lex = (scale: number): Record<string, Yardstick> => ({ lexical: { kind: 'bm25', scale } });

test('"when" questions are told from other questions', () => {
  for (const q of [
    'When did Caroline go to the support group?',
    'since when has the build been red',
    'How long ago was the outage?',
    'In what year did Jon open his store?',
    'what month is the offsite',
  ])
    assert.ok(isWhenQuestion(q), q);
  for (const q of ['What did the vet say?', 'Where is the office?', 'Whenever I deploy, what breaks?', 'What is the time zone of the Berlin office?'])
    assert.ok(!isWhenQuestion(q), q);
});

test('memories that state a time are told from those that do not', () => {
  for (const t of [
    'I went hiking last week.',
    'Yesterday I chose to go to networking events.',
    'I first watched it around 3 years ago.',
    'We moved in May 2023.',
    'The review is on Friday',
    'It shipped on 3/14.',
  ])
    assert.ok(statesATime(t), t);
  for (const t of ['I love hiking in the mountains.', 'The dance studio needs a new floor.', 'Maybe we could meet for coffee.']) assert.ok(!statesATime(t), t);
});

test('match strength reads raw values: BM25 against the query yardstick, cosine on an absolute ramp, the best of them', () => {
  assert.equal(matchStrength({}, lex(10)), 0);
  assert.equal(matchStrength({ lexical: { rank: 1, score: 5 } }, lex(10)), 0.5);
  // A lexical score above the yardstick (a term repeated) is capped.
  assert.equal(matchStrength({ lexical: { rank: 1, score: 25 } }, lex(10)), 1);
  assert.equal(matchStrength({ E1: { rank: 1, score: 0.1 } }, lex(10)), 0);
  assert.ok(Math.abs(matchStrength({ E1: { rank: 1, score: 0.5 } }, lex(10)) - 0.5) < 1e-9);
  assert.equal(matchStrength({ lexical: { rank: 3, score: 2 }, E1: { rank: 1, score: 0.95 } }, lex(10)), 1);
  // No query terms at all: the lexical side cannot vouch for anything.
  assert.equal(matchStrength({ lexical: { rank: 1, score: 2 } }, lex(0)), 0);
  // E6 (BM25 over expanded terms) against its own yardstick, not as a cosine: a raw 2 of 10 is weak.
  assert.equal(matchStrength({ E6: { rank: 1, score: 2 } }, { ...lex(10), E6: { kind: 'bm25', scale: 10 } }), 0.2);
  // E12 MaxSim on its own ramp: an unrelated memory's ~0.45 (nearest GloVe words) says nothing.
  assert.equal(matchStrength({ E12: { rank: 1, score: 0.45 } }, { ...lex(10), E12: MAXSIM_RAMP }), 0);
  assert.equal(matchStrength({ E12: { rank: 1, score: MAXSIM_FLOOR } }, { ...lex(10), E12: MAXSIM_RAMP }), 0);
  assert.equal(matchStrength({ E12: { rank: 1, score: 1 } }, { ...lex(10), E12: MAXSIM_RAMP }), 1);
});

test('a chat turn names its speaker; a question that names them lifts their turns, and a "when" question lifts stated times', () => {
  assert.equal(speakerOf('Caroline: I went to the support group.'), 'caroline');
  assert.equal(speakerOf('Mary Ann Lee: see you then'), 'mary ann lee');
  assert.equal(speakerOf('the deploy failed: disk full'), null);
  assert.equal(speakerOf('Caroline said: hi'), null);
  const words = questionWords("What did Caroline's sister research?");
  assert.ok(namesSpeaker(words, 'caroline'));
  assert.ok(!namesSpeaker(words, 'melanie'));
  assert.ok(!namesSpeaker(questionWords('What did Mary say?'), 'mary ann lee'));
  const when = { when: true, words: questionWords('When did Caroline go hiking?') };
  assert.equal(cueFactor(when, 'Melanie: nice photo'), 1);
  assert.equal(cueFactor(when, 'Melanie: I went hiking last week'), 1 + TIME_CUE_BOOST);
  assert.equal(cueFactor(when, 'Caroline: I went hiking last week'), (1 + TIME_CUE_BOOST) * (1 + SPEAKER_CUE_BOOST));
  assert.equal(cueFactor({ when: false, words: when.words }, 'Caroline: I went hiking last week'), 1 + SPEAKER_CUE_BOOST);
});
