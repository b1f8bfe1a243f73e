import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isAppError } from '../../src/errors.js';
import type { JobQueue } from '../../src/jobs/queue.js';
import { createLogger } from '../../src/log.js';
import { EmbeddingScheduler } from '../../src/services/embedding-scheduler.js';
import { EntriesService } from '../../src/services/entries.js';
import { ProjectReports } from '../../src/services/project-reports.js';
import { ProjectService } from '../../src/services/projects.js';
import type { SearchService } from '../../src/services/search.js';
import { latestTxId } from '../../src/store/tx-log.js';
import { type Harness, pgliteHarness, postgresHarness } from '../helpers/stores.js';

// The project model's write rules on both drivers; on Postgres the writers really run at once.

const logger = createLogger('silent');
const harnesses: Array<[string, () => Promise<Harness>]> = [['pglite', pgliteHarness]];
if (process.env.DATABASE_URL) harnesses.push(['postgres', postgresHarness]);

const noQueue = {
  backend: 'in-process',
  enqueue: async (_n: string, _p: unknown, o?: { jobId?: string }) => ({ id: o?.jobId ?? 'job', finished: async () => undefined }),
} as unknown as JobQueue;

function codeOf(r: PromiseSettledResult<unknown>): string {
  if (r.status === 'fulfilled') return 'ok';
  return isAppError(r.reason) ? r.reason.code : `unexpected: ${String(r.reason)}`;
}

for (const [driver, open] of harnesses) {
  describe(`project service (${driver})`, () => {
    let h: Harness;
    let projects: ProjectService;
    let reports: ProjectReports;
    let entries: EntriesService;

    before(async () => {
      h = await open();
      const embedding = new EmbeddingScheduler({ queue: noQueue, indexSync: null, logger, waitMs: 0 });
      entries = new EntriesService({ db: h.db, embedding });
      projects = new ProjectService({ db: h.db, embedding, entries });
      // Structure checks and export read no index.
      reports = new ProjectReports({ db: h.db, search: {} as SearchService, projects });
    });
    after(async () => h?.cleanup());

    test('concurrent updates at the same expected_version: exactly one wins, the rest are VERSION_CONFLICT', async () => {
      const { entity } = await projects.create('work', { what: 'Contended' }, 'test');
      const settled = await Promise.allSettled(
        Array.from({ length: 5 }, (_, i) => projects.update('work', entity.id, (f) => ({ ...f, why: `writer ${i}` }), { expectedVersion: 1, actor: 'test' })),
      );
      const codes = settled.map(codeOf);
      assert.equal(codes.filter((c) => c === 'ok').length, 1, codes.join(', '));
      assert.equal(codes.filter((c) => c === 'VERSION_CONFLICT').length, 4, codes.join(', '));
      assert.equal((await projects.get('work', entity.id)).version, 2);
    });

    test('concurrent creates of one kind get distinct, numbered ids', async () => {
      const made = await Promise.all(Array.from({ length: 6 }, () => projects.create('phase', { what: 'Same title' }, 'test')));
      const ids = made.map((m) => m.entity.id);
      assert.equal(new Set(ids).size, ids.length, ids.join(', '));
      for (const id of ids) assert.match(id, /^phase_\d+_same_title$/);
    });

    test('a refused write changes nothing and records no transaction', async () => {
      const phase = (await projects.create('phase', { what: 'Refusals' }, 'test')).entity.id;
      const path = (await projects.create('path', { phase_id: phase, what: 'Refused path' }, 'test')).entity.id;
      const before = await latestTxId(h.db);
      await assert.rejects(projects.addWorks(path, [{ work_id: 'work_404_nothing' }], { actor: 'test' }), (e) => isAppError(e) && e.code === 'PARENT_NOT_FOUND');
      await assert.rejects(projects.create('path', { phase_id: 'phase_404', what: 'x' }, 'test'), (e) => isAppError(e) && e.code === 'PARENT_NOT_FOUND');
      await assert.rejects(projects.remove('phase', phase, 'test'), (e) => isAppError(e) && e.code === 'VALIDATION_FAILED');
      assert.equal(await latestTxId(h.db), before);
      assert.equal((await projects.get('path', path)).version, 1);
    });

    test('validate reports an orphan when a parent is deleted behind the model (memory delete), and an empty path', async () => {
      const phase = (await projects.create('phase', { what: 'Doomed parent', success_criteria: { ok: true } }, 'test')).entity.id;
      const path = (await projects.create('path', { phase_id: phase, what: 'Left behind' }, 'test')).entity.id;
      await entries.delete({ ids: [phase] }, 'test');
      const report = await reports.validate();
      assert.equal(report.valid, false);
      assert.ok(report.issues.some((i) => i.type === 'orphan' && i.id === path && i.message.includes(phase)));
      assert.ok(report.issues.some((i) => i.type === 'empty_structure' && i.id === path));
    });
  });
}
