// The pure pieces of the LoCoMo bench part, on made-up conversations (the real file is CC BY-NC
// and never enters the repository).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cleanEvidence, parseLocomo, parseSessionDateTime, turnContent } from '../../bench/locomo/data.js';
import { hitAt, scoreByCategory, scoreLocomo } from '../../bench/locomo/score.js';

const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-4, `${a} != ${b}`);

test('session date-times parse to UTC instants, 12 am as midnight and 12 pm as noon', () => {
  assert.equal(parseSessionDateTime('3:07 pm on 14 March, 2021').toISOString(), '2021-03-14T15:07:00.000Z');
  assert.equal(parseSessionDateTime('9:41 am on 2 October, 2019').toISOString(), '2019-10-02T09:41:00.000Z');
  assert.equal(parseSessionDateTime('12:05 am on 1 January, 2020').toISOString(), '2020-01-01T00:05:00.000Z');
  assert.equal(parseSessionDateTime('12:30 pm on 29 February, 2024').toISOString(), '2024-02-29T12:30:00.000Z');
  assert.equal(parseSessionDateTime('11:59 PM on 30 november 2022').toISOString(), '2022-11-30T23:59:00.000Z');
});

test('session date-times that do not exist or do not match the format are errors', () => {
  assert.throws(() => parseSessionDateTime('10:00 am on 31 April, 2021'), /invalid day/);
  assert.throws(() => parseSessionDateTime('12:00 pm on 29 February, 2023'), /invalid day/);
  assert.throws(() => parseSessionDateTime('13:10 pm on 3 June, 2021'), /invalid time/);
  assert.throws(() => parseSessionDateTime('4:20 pm on 3 Juney, 2021'), /unrecognised/);
  assert.throws(() => parseSessionDateTime('2021-06-03T16:20:00Z'), /unrecognised/);
});

test('a turn is stored as "<speaker>: <text>" plus its photo caption', () => {
  assert.equal(turnContent({ speaker: 'Ada', text: 'The kiln is finally fixed.' }), 'Ada: The kiln is finally fixed.');
  assert.equal(turnContent({ speaker: 'Bo', text: 'Look!', blip_caption: 'a dog on a red sofa' }), 'Bo: Look! [shares a photo: a dog on a red sofa]');
  assert.equal(turnContent({ speaker: 'Bo', text: 'Hi', blip_caption: '  ' }), 'Bo: Hi');
});

test('evidence lists: joined ids split, the D:n:m typo fixed, unknown ids dropped and counted', () => {
  const known = new Set(['D1:1', 'D1:2', 'D3:4']);
  const repairs = { split: 0, rewritten: 0, dropped: 0 };
  assert.deepEqual(cleanEvidence(['D1:1; D3:4'], known, repairs), ['D1:1', 'D3:4']);
  assert.deepEqual(cleanEvidence(['D:1:2', 'D9:9', 'D1:2'], known, repairs), ['D1:2']);
  assert.deepEqual(repairs, { split: 1, rewritten: 1, dropped: 1 });
});

test('a LoCoMo-shaped sample becomes dated turns in session order and cleaned questions', () => {
  const { samples, repairs } = parseLocomo([
    {
      sample_id: 'toy-1',
      conversation: {
        speaker_a: 'Ada',
        speaker_b: 'Bo',
        session_2_date_time: '8:00 pm on 5 May, 2022',
        session_2: [{ speaker: 'Bo', dia_id: 'D2:1', text: 'Back from the coast.' }],
        session_10_date_time: '7:15 am on 9 June, 2022',
        session_10: [{ speaker: 'Ada', dia_id: 'D10:1', text: 'New bike.', blip_caption: 'a green bicycle' }],
        session_1_date_time: '1:00 pm on 1 May, 2022',
        session_1: [
          { speaker: 'Ada', dia_id: 'D1:1', text: 'Off to the coast tomorrow.' },
          { speaker: 'Bo', dia_id: 'D1:2', text: 'Bring a jacket.' },
        ],
      },
      qa: [
        { question: 'Where did Ada go?', answer: 'the coast', evidence: ['D1:1', 'D2:1'], category: 4 },
        { question: 'Colour of the bike?', answer: 'green', evidence: ['D10:1'], category: 1 },
        { question: 'What did Bo cook?', adversarial_answer: 'soup', evidence: [], category: 5 },
      ],
    },
  ]);
  const s = samples[0]!;
  assert.equal(s.sampleId, 'toy-1');
  assert.deepEqual(
    s.turns.map((t) => t.diaId),
    ['D1:1', 'D1:2', 'D2:1', 'D10:1'],
  );
  assert.equal(s.turns[3]!.content, 'Ada: New bike. [shares a photo: a green bicycle]');
  assert.deepEqual(
    s.turns.map((t) => t.validFrom.toISOString().slice(0, 16)),
    ['2022-05-01T13:00', '2022-05-01T13:00', '2022-05-05T20:00', '2022-06-09T07:15'],
  );
  assert.deepEqual(
    s.questions.map((q) => [q.category, q.evidence]),
    [
      [4, ['D1:1', 'D2:1']],
      [1, ['D10:1']],
      [5, []],
    ],
  );
  assert.deepEqual(repairs, { split: 0, rewritten: 0, dropped: 0 });
});

test('hit@k is 1 when any evidence id is in the first k', () => {
  assert.equal(hitAt(['x', 'y', 'b'], ['a', 'b'], 3), 1);
  assert.equal(hitAt(['x', 'y', 'b'], ['a', 'b'], 2), 0);
  assert.equal(hitAt(['x'], [], 5), 0);
});

test('recall@k and hit@k average over questions with evidence; the rest are not scored', () => {
  const ranks = (n: number, at: Record<number, string>) => Array.from({ length: n }, (_, i) => at[i + 1] ?? `other${i}`);
  const runs = [
    // Two of three evidence turns at ranks 1 and 3: recall 2/3 from k = 5 on, hit 1.
    { category: 1, ranked: ranks(60, { 1: 'a', 3: 'b' }), evidence: ['a', 'b', 'c'] },
    // The only evidence turn at rank 7: recall and hit 0 at 5, 1 from 10 on.
    { category: 2, ranked: ranks(60, { 7: 'z' }), evidence: ['z'] },
    // Evidence at rank 30 and rank 51 (beyond the deepest cut-off): 1/2 at 50.
    { category: 2, ranked: ranks(60, { 30: 'p', 51: 'q' }), evidence: ['p', 'q'] },
    { category: 5, ranked: ranks(60, { 1: 'a' }), evidence: [] },
  ];
  const s = scoreLocomo(runs);
  assert.equal(s.n, 3);
  close(s.recall_at_5, (2 / 3 + 0 + 0) / 3);
  close(s.recall_at_10, (2 / 3 + 1 + 0) / 3);
  close(s.recall_at_25, (2 / 3 + 1 + 0) / 3);
  close(s.recall_at_50, (2 / 3 + 1 + 1 / 2) / 3);
  close(s.hit_at_5, 1 / 3);
  close(s.hit_at_10, 2 / 3);
  close(s.hit_at_50, 1);
  const by = scoreByCategory(runs);
  assert.deepEqual(Object.keys(by.by_category), ['1', '2', '5']);
  close(by.by_category['2']!.recall_at_10, (1 + 0) / 2);
  close(by.by_category['2']!.recall_at_50, (1 + 1 / 2) / 2);
  assert.equal(by.by_category['5']!.n, 0);
  assert.equal(by.by_category['5']!.recall_at_50, 0);
});
