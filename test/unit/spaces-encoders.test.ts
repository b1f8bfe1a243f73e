import assert from 'node:assert/strict';
import { test } from 'node:test';
import { causalParts, causalQuestion, createCausalEncoder } from '../../src/embed/encoders/causal.js';
import { periodicVector, positionVector, recencyVector } from '../../src/embed/encoders/temporal.js';
import { codeTerms, entityTerms, identifierParts, paraphraseVector } from '../../src/embed/encoders/terms.js';
import { createHashingEncoder } from '../../src/embed/hashing.js';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const DAY = 86_400_000;

test('E2: the nearer two times, the higher their cosine, from hours to years', () => {
  const t = Date.UTC(2024, 4, 1, 12);
  const sims = [0, 3_600_000, DAY, 30 * DAY, 365 * DAY, 3650 * DAY].map((d) => dot(recencyVector(t), recencyVector(t - d)));
  assert.ok(Math.abs(sims[0]! - 1) < 1e-5);
  for (let i = 1; i < sims.length; i++) assert.ok(sims[i]! < sims[i - 1]!, `cos at step ${i}: ${sims.join(', ')}`);
});

test('E3: the same hour a week later is closer than another hour of the same day', () => {
  const mondayNine = Date.UTC(2024, 4, 6, 9);
  assert.ok(dot(periodicVector(mondayNine), periodicVector(mondayNine + 7 * DAY)) > 0.95);
  assert.ok(dot(periodicVector(mondayNine), periodicVector(mondayNine + 12 * 3_600_000)) < 0.8);
});

test('E4: neighbours in order are neighbours in the space', () => {
  const p = positionVector(100);
  assert.ok(dot(p, positionVector(101)) > dot(p, positionVector(110)));
  assert.ok(dot(p, positionVector(110)) > dot(p, positionVector(400)));
});

test('E5: clauses around a causal marker, either way round, and questions by the side they ask for', () => {
  assert.deepEqual(causalParts('I stopped running because my knee hurt.'), { cause: 'my knee hurt.', effect: 'I stopped running' });
  assert.deepEqual(causalParts('The outage led to a rollback'), { cause: 'The outage', effect: 'a rollback' });
  assert.deepEqual(causalParts('Because it rained, we stayed in.'), { cause: 'it rained', effect: ' we stayed in.' });
  assert.equal(causalParts('I am so happy today'), null);
  assert.deepEqual(causalQuestion('Why did the deploy fail?'), { side: 'effect', topic: ' did the deploy fail?' });
  assert.deepEqual(causalQuestion('What did the outage lead to?'), { side: 'cause', topic: 'the outage' });
});

test('E5: "why A?" finds the memory whose effect is A above the one whose cause is A', async () => {
  const e5 = createCausalEncoder(createHashingEncoder());
  const [effectIsDeploy, causeIsDeploy, plain, why, ledTo] = await e5.encode([
    'The deploy failed because the disk was full.',
    'The deploy failed, so the disk was full of logs.'.replace('The deploy failed, so', 'The disk filled up, so the deploy failed').replace(' of logs', ''),
    'The deploy failed and the disk was full.',
    'Why did the deploy fail?',
    'What did the full disk lead to?',
  ]);
  assert.equal(e5.info.dim, 2 * 384 + 1);
  assert.ok(dot(why!, effectIsDeploy!) > dot(why!, plain!), 'a causal memory outranks a plain mention');
  assert.ok(dot(ledTo!, effectIsDeploy!) > 0 && dot(why!, causeIsDeploy!) >= 0);
});

test('E7: identifiers count whole and by their parts', () => {
  assert.deepEqual(identifierParts('parseHTTPRequest_v2'), ['parse', 'http', 'request', 'v2']);
  const t = codeTerms('call parseHttpRequest in src/embed/pool.ts');
  assert.equal(t.get('id:parsehttprequest'), 2);
  assert.equal(t.get('http'), 1);
  assert.equal(t.get('id:src/embed/pool.ts'), 2);
  assert.equal(t.get('pool'), 1);
  assert.equal(t.has('in'), false);
});

test('E11: names, handles, dates, numbers and ids; nothing else', () => {
  const t = entityTerms('When Caroline met John Smith in New York on 2023-05-01, @bob paid 1,200 for order abc123 in May.');
  for (const k of ['caroline', 'john smith', 'new york', 'date:2023-05-01', '@bob', 'num:1200', 'id:abc123', 'month:may']) assert.ok(t.has(k), k);
  for (const k of ['when', 'met', 'paid', 'order']) assert.equal(t.has(k), false, k);
});

test('E10: word order and inflection do not matter, content words do', () => {
  const a = paraphraseVector('The team deployed the new billing service.');
  assert.ok(dot(a, paraphraseVector('New billing service: the team deploys it')) > 0.99);
  assert.ok(dot(a, paraphraseVector('Lunch at the sushi place')) < 0.5);
});
