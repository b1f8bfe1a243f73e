import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { useInProcessApp } from '../helpers/in-memory.js';

/**
 * `store` answers once its rows are committed and its embed job is queued; this process's reads
 * wait for the vectors (PendingVectors). The embed job is held here by a gate in front of the real
 * embedder's full-space call (the job's), so "answered before its vectors" is certain, not a race.
 */
describe('store answers before its vectors', () => {
  const used = useInProcessApp('answer-first', []);
  const call = used.call;
  /**
   * Runs `fn` with the embed job's encoding held until `fn` calls the release it is given (or
   * returns); the real embedder serves every call again afterwards.
   */
  async function withEmbedJobsHeld(fn: (release: () => void) => Promise<void>): Promise<void> {
    const embed = used.app.embedder.embed.bind(used.app.embedder);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    used.app.embedder.embed = async (texts, spaces, opts) => {
      // Only the embed job asks for every space; the duplicate check and searches name theirs.
      if (spaces === undefined) await held;
      return embed(texts, spaces, opts);
    };
    try {
      await fn(release);
    } finally {
      release();
      used.app.embedder.embed = embed;
    }
  }

  test('a search made after the store waits for its vectors and finds it by meaning', async () => {
    await withEmbedJobsHeld(async (releaseJobs) => {
      const stored = await call('store', { content: 'The lighthouse keeper logs the tide height every dawn in a leather notebook.', project_id: 'answer-first' });
      assert.equal(stored.searchable, true);
      assert.equal(used.app.services.pendingVectors.size, 1, 'the store answered while its embed job was held');
      let answered = false;
      const search = call('search', { query_text: 'who records sea levels each morning', project_id: 'answer-first', limit: 3 }).finally(() => (answered = true));
      await sleep(200);
      assert.equal(answered, false, 'the search waits for the vectors of the store before it');
      releaseJobs();
      const found = await search;
      assert.equal(found.hits[0]?.id, stored.id, JSON.stringify(found.hits));
      assert.equal(used.app.services.pendingVectors.size, 0);
    });
  });

  test('back-to-back stores do not wait for each other, and the second reports the first as a near duplicate', async () => {
    await withEmbedJobsHeld(async (releaseJobs) => {
      const first = await call('store', { content: 'Answer-first test: the staging cluster is rebuilt every Sunday night.', project_id: 'answer-first-dupes' });
      const second = await call('store', { content: 'Answer-first test: the staging cluster is rebuilt every Sunday evening.', project_id: 'answer-first-dupes' });
      assert.equal(used.app.services.pendingVectors.size, 2, 'neither store waited for its vectors');
      assert.ok(
        second.possible_duplicates.some((d: { id: string; match: string }) => d.match === 'near' && d.id === first.id),
        `the first store's vector, not yet indexed, is compared: ${JSON.stringify(second.possible_duplicates)}`,
      );
      releaseJobs();
      const third = await call('store', { content: 'Answer-first test: the staging cluster is rebuilt every Sunday nights.', project_id: 'answer-first-dupes' });
      const near = third.possible_duplicates.filter((d: { match: string }) => d.match === 'near').map((d: { id: string }) => d.id);
      assert.ok(near.includes(first.id) && near.includes(second.id), JSON.stringify(third.possible_duplicates));
    });
  });

  test('stores made while an embed job runs share the next one, and a search after them finds the last', async () => {
    // The earlier tests' jobs are over, so the first store below queues a job of its own.
    await used.app.services.pendingVectors.settled();
    await sleep(100);
    await withEmbedJobsHeld(async (releaseJobs) => {
      const project = 'answer-first-burst';
      const first = await call('store', { content: 'Burst test: the ferry to the island leaves at seven.', project_id: project });
      const second = await call('store', { content: 'Burst test: the bakery by the pier opens at six.', project_id: project });
      const third = await call('store', { content: 'Burst test: the lighthouse museum closes on Mondays.', project_id: project });
      assert.notEqual(second.embedding_job_id, first.embedding_job_id);
      assert.equal(third.embedding_job_id, second.embedding_job_id, 'one job for the stores made while the first one ran');
      // Not on the queue while the first job runs, yet its record is there for the stores' callers.
      const waiting = await used.app.services.jobRecords.get(second.embedding_job_id);
      assert.equal(waiting?.state, 'waiting', JSON.stringify(waiting));
      assert.equal(waiting?.name, 'embed');
      const search = call('search', { query_text: 'when does the museum close', project_id: project, limit: 1 });
      releaseJobs();
      const found = await search;
      assert.equal(found.hits[0]?.id, third.id, JSON.stringify(found.hits));
      assert.equal(used.app.services.pendingVectors.size, 0);
      const done = await used.app.services.jobRecords.get(second.embedding_job_id);
      assert.equal(done?.state, 'completed', JSON.stringify(done));
    });
  });
});
