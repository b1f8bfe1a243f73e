import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger, LogRing, logRingOf, scrubSecrets } from '../../src/log.js';
import { rankTools, type ToolCatalog } from '../../src/services/metacognition/catalog.js';
import { readLogs } from '../../src/services/metacognition/logs.js';
import { disagreement, textFacts } from '../../src/services/metacognition/text.js';

test('disagreement: negation, numbers and dates of the same statement; different statements are no conflict', () => {
  const facts = (s: string) => textFacts(s);
  assert.deepEqual(
    disagreement(facts('The deploy freeze is in effect this week.'), facts("The deploy freeze isn't in effect this week."), 0.5).found.map((f) => f.kind),
    ['negation'],
  );
  assert.deepEqual(
    disagreement(facts('The staging database listens on port 5432.'), facts('The staging database listens on port 6543.'), 0.5).found.map((f) => f.kind),
    ['numbers'],
  );
  assert.deepEqual(
    disagreement(facts('The launch is on 2026-03-01 in Berlin.'), facts('The launch is on 2026-04-01 in Berlin.'), 0.5).found.map((f) => f.kind),
    ['dates'],
  );
  // Same subject, different attribute: the words differ too much to call it a contradiction.
  assert.deepEqual(disagreement(facts('Backups run nightly at 02:00 UTC.'), facts('Backups are kept for 30 days in cold storage.'), 0.5).found, []);
  // Same words, same numbers: consistent.
  assert.deepEqual(disagreement(facts('Port 5432 serves the staging database.'), facts('The staging database is served on port 5432.'), 0.5).found, []);
});

test('scrubSecrets removes URL passwords, bearer tokens and secret-named fields', () => {
  const line = JSON.stringify({ url: 'redis://app:s3cr3t@cache:6379/0', auth: 'Bearer abcdef0123456789', api_key: 'k-123', note: 'plain text stays' });
  const out = scrubSecrets(line);
  assert.ok(!out.includes('s3cr3t') && !out.includes('abcdef0123456789') && !out.includes('k-123'), out);
  assert.ok(out.includes('plain text stays') && out.includes('redis://app:[redacted]@cache'), out);
});

test('the log ring is bounded, keeps debug lines stderr does not show, and filters by level and component', () => {
  const logger = createLogger('warn');
  const ring = logRingOf(logger)!;
  assert.ok(ring instanceof LogRing);
  logger.child({ component: 'storage' }).debug({ id: 'a' }, 'quiet detail');
  logger.child({ component: 'curation' }).warn({ id: 'b' }, 'loud');
  const debug = readLogs(ring, { level: 'debug', limit: 10, component: 'all' });
  assert.deepEqual(
    debug.entries.map((e) => e.msg),
    ['loud', 'quiet detail'],
  );
  assert.deepEqual(
    readLogs(ring, { level: 'info', limit: 10, component: 'all' }).entries.map((e) => e.msg),
    ['loud'],
  );
  assert.deepEqual(
    readLogs(ring, { level: 'debug', limit: 10, component: 'storage' }).entries.map((e) => e.fields.id),
    ['a'],
  );
  const small = new LogRing(3);
  for (let i = 0; i < 5; i++) small.write(JSON.stringify({ level: 30, msg: `m${i}` }));
  assert.deepEqual(
    small.recent().map((l) => JSON.parse(l.line).msg),
    ['m4', 'm3', 'm2'],
  );
  assert.equal(small.written, 5);
  assert.equal(logRingOf(createLogger('silent')), null);
});

test('rankTools: the goal words pick the tool whose description says them, rare words weigh more', () => {
  const tool = (name: string, description: string) => ({ name, toolset: 'x', enabled: true, description });
  const catalog: ToolCatalog = {
    toolsets: [],
    tools: [
      tool('merge_concepts', 'Merge duplicate memories into one memory.'),
      tool('search', 'Search memories by meaning and keywords.'),
      tool('forget_concept', 'Forget a memory; it stays restorable.'),
    ],
  };
  assert.equal(rankTools(catalog, 'merge the duplicate notes')[0]!.tool.name, 'merge_concepts');
  assert.equal(rankTools(catalog, 'search for the deploy notes')[0]!.tool.name, 'search');
  assert.deepEqual(rankTools(catalog, 'about notes'), [], 'filler words and stems of stop words match nothing');
});
