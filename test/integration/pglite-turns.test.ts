import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { pgliteHarness, type Harness } from '../helpers/stores.js';

/**
 * PGlite settles a statement's promise at once, so without a yield a chain of awaited statements
 * runs in microtasks and nothing else (a worker's reply, a timer, a socket) gets a turn until it
 * ends: an import's index replica waited seconds to hear from the index thread. The Db wrapper
 * yields a turn every few milliseconds of statements.
 */
let h: Harness;

before(async () => {
  h = await pgliteHarness();
});

after(async () => {
  await h?.cleanup();
});

async function chainWhileATimerWaits(run: (i: number) => Promise<unknown>, statements: number): Promise<number | null> {
  let firedAt: number | null = null;
  let done = 0;
  const timer = setTimeout(() => (firedAt = done), 0);
  for (; done < statements; done++) await run(done);
  clearTimeout(timer);
  return firedAt;
}

test('a timer gets its turn during a long chain of statements, outside and inside a transaction', async () => {
  const statements = 400;
  const outside = await chainWhileATimerWaits(() => h.db.query('select $1::int as n', [1]), statements);
  assert.ok(outside !== null && outside < statements, `outside a transaction the timer fired after statement ${outside} of ${statements}`);
  const inside = await h.db.transaction((tx) => chainWhileATimerWaits(() => tx.query('select $1::int as n', [1]), statements));
  assert.ok(inside !== null && inside < statements, `inside a transaction the timer fired after statement ${inside} of ${statements}`);
});
