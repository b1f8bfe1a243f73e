import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { type startServe, useEmbeddedServer } from '../helpers/cli.js';
import { api, failed, ok } from '../helpers/rest.js';

/**
 * One test per operation of seed 002 §2, over real HTTP: the happy path, a missing required
 * field, an unknown reference (not found, naming what was missing), and a wrong type.
 */

interface Ids {
  phase: string;
  work: string;
  work2: string;
  path: string;
  tide: string;
  pattern: string;
}

type Case = {
  /** Arguments of a successful call, and a check of its result. */
  happy(ids: Ids, base: string): Promise<[Record<string, unknown>, (r: any) => void]>;
  missing?: Record<string, unknown>;
  /** An unknown id and the REST code it answers (ENTITY_NOT_FOUND or PARENT_NOT_FOUND). */
  unknown?: [Record<string, unknown>, string];
  wrongType: Record<string, unknown>;
};

const NOPE = 'no_such_entity_42';
const hit = (ids: string[], id: string) => assert.ok(ids.includes(id), `${id} in ${ids.join(', ')}`);
const idsOf = (items: Array<{ id: string }>) => items.map((i) => i.id);

const CASES: Record<string, Case> = {
  'phase-create': {
    happy: async () => [
      { what: 'Ship search', scope: { apis: ['Search'] }, architecture: { storage: 'PGlite' }, success_criteria: { fast: true } },
      (r) => assert.deepEqual(r.phase.architecture, { storage: 'PGlite' }),
    ],
    missing: { scope: {} },
    wrongType: { what: 'x', scope: 'all of it' },
  },
  'phase-list': { happy: async (i) => [{ limit: 200 }, (r) => hit(idsOf(r.phases), i.phase)], wrongType: { limit: 'ten' } },
  'phase-get': {
    happy: async (i) => [{ phase_id: i.phase }, (r) => assert.deepEqual(r.phase.success_criteria, { api_working: true })],
    missing: {},
    unknown: [{ phase_id: NOPE }, 'ENTITY_NOT_FOUND'],
    wrongType: { phase_id: 7 },
  },
  'phase-update': {
    happy: async (i) => [{ phase_id: i.phase, status: 'active', scope: null }, (r) => assert.equal(r.phase.status, 'active')],
    missing: { status: 'x' },
    unknown: [{ phase_id: NOPE, status: 'x' }, 'ENTITY_NOT_FOUND'],
    wrongType: { phase_id: 'x', success_criteria: [1] },
  },
  'phase-delete': {
    happy: async (_i, b) => [{ phase_id: ok(await api(b, 'phase-create', { what: 'Doomed phase' })).phase_id }, (r) => assert.equal(r.deleted, true)],
    missing: {},
    unknown: [{ phase_id: NOPE }, 'ENTITY_NOT_FOUND'],
    wrongType: { phase_id: ['a'] },
  },
  'work-create': {
    happy: async () => [{ what: 'Write docs', how: { steps: ['outline', 'draft'] } }, (r) => assert.deepEqual(r.work.how, { steps: ['outline', 'draft'] })],
    missing: { how: [] },
    wrongType: { what: 'x', how: 'steps' },
  },
  'work-list': { happy: async (i) => [{}, (r) => hit(idsOf(r.works), i.work)], wrongType: { after: 5 } },
  'work-get': {
    happy: async (i) => [{ work_id: i.work }, (r) => assert.equal(r.work.what, 'Setup PostgreSQL database')],
    missing: {},
    unknown: [{ work_id: NOPE }, 'ENTITY_NOT_FOUND'],
    wrongType: { work_id: null },
  },
  'work-update': {
    happy: async (i) => [{ work_id: i.work2, metrics: { tests: 12 } }, (r) => assert.deepEqual(r.work.metrics, { tests: 12 })],
    missing: { what: 'x' },
    unknown: [{ work_id: NOPE, what: 'x' }, 'ENTITY_NOT_FOUND'],
    wrongType: { work_id: 'x', expected_version: 'one' },
  },
  'work-delete': {
    happy: async (_i, b) => [{ work_id: ok(await api(b, 'work-create', { what: 'Doomed work' })).work_id }, (r) => assert.equal(r.deleted, true)],
    missing: {},
    unknown: [{ work_id: NOPE }, 'ENTITY_NOT_FOUND'],
    wrongType: { work_id: {} },
  },
  'path-create': {
    happy: async (i) => [{ phase_id: i.phase, what: 'Second approach', for_new_session: 'Read ARCHITECTURE.md first' }, (r) => assert.equal(r.path.phase_id, i.phase)],
    missing: { what: 'no phase' },
    unknown: [{ phase_id: NOPE, what: 'x' }, 'PARENT_NOT_FOUND'],
    wrongType: { phase_id: 'x', what: 'y', metrics: 3 },
  },
  'path-list': { happy: async (i) => [{ phase_id: i.phase }, (r) => hit(idsOf(r.paths), i.path)], unknown: [{ phase_id: NOPE }, 'PARENT_NOT_FOUND'], wrongType: { phase_id: 1 } },
  'path-get': {
    happy: async (i) => [
      { path_id: i.path },
      (r) =>
        assert.deepEqual(
          r.path.works.map((w: { work_id: string }) => w.work_id),
          [i.work, i.work2],
        ),
    ],
    missing: {},
    unknown: [{ path_id: NOPE }, 'ENTITY_NOT_FOUND'],
    wrongType: { path_id: true },
  },
  'path-update': {
    happy: async (i) => [{ path_id: i.path, metrics: { p95_ms: 40 } }, (r) => assert.deepEqual(r.path.metrics, { p95_ms: 40 })],
    missing: { what: 'x' },
    unknown: [{ path_id: NOPE, what: 'x' }, 'ENTITY_NOT_FOUND'],
    wrongType: { path_id: 'x', for_new_session: 9 },
  },
  'path-add-works': {
    happy: async (i, b) => [
      { path_id: ok(await api(b, 'path-create', { phase_id: i.phase, what: 'Linked path' })).path_id, works: [i.work2, { work_id: i.work, purpose: 'then the database' }] },
      (r) =>
        assert.deepEqual(
          r.path.works.map((w: { work_id: string; sequence: number }) => [w.work_id, w.sequence]),
          [
            [i.work2, 1],
            [i.work, 2],
          ],
        ),
    ],
    missing: { works: ['x'] },
    unknown: [{ path_id: NOPE, works: ['x'] }, 'ENTITY_NOT_FOUND'],
    wrongType: { path_id: 'x', works: 'work_1' },
  },
  'path-delete': {
    happy: async (i, b) => [{ path_id: ok(await api(b, 'path-create', { phase_id: i.phase, what: 'Doomed path' })).path_id }, (r) => assert.equal(r.deleted, true)],
    missing: {},
    unknown: [{ path_id: NOPE }, 'ENTITY_NOT_FOUND'],
    wrongType: { path_id: 0 },
  },
  'tide-create': {
    happy: async (i) => [{ path_id: i.path }, (r) => assert.ok(r.tide.number >= 2, 'attempt numbers go up per path')],
    missing: {},
    unknown: [{ path_id: NOPE }, 'PARENT_NOT_FOUND'],
    wrongType: { path_id: 'x', execution: [] },
  },
  'tide-update-execution': {
    happy: async (i) => [
      { tide_id: i.tide, execution: { [i.work]: { status: 'complete', evidence: { rows: 3 } } } },
      (r) => assert.equal(r.tide.execution[i.work].status, 'complete'),
    ],
    missing: { execution: { a: { status: 'complete' } } },
    unknown: [{ tide_id: NOPE, execution: { a: { status: 'complete' } } }, 'ENTITY_NOT_FOUND'],
    wrongType: { tide_id: 'x', execution: { a: { status: 'done-ish' } } },
  },
  'tide-complete': {
    happy: async (i, b) => [
      { tide_id: ok(await api(b, 'tide-create', { path_id: i.path })).tide_id, outcome: 'partial', learnings: { for_path: 'split it' }, metrics_achieved: { fast: false } },
      (r) => assert.deepEqual([r.tide.status, r.tide.outcome, r.tide.learnings], ['completed', 'partial', { for_path: 'split it' }]),
    ],
    missing: { outcome: 'success', learnings: 'x' },
    unknown: [{ tide_id: NOPE, outcome: 'success', learnings: 'x' }, 'ENTITY_NOT_FOUND'],
    wrongType: { tide_id: 'x', outcome: 'great', learnings: 'x' },
  },
  'tide-list': { happy: async (i) => [{ path_id: i.path }, (r) => hit(idsOf(r.tides), i.tide)], unknown: [{ path_id: NOPE }, 'PARENT_NOT_FOUND'], wrongType: { limit: 0 } },
  'tide-get': {
    happy: async (i) => [{ tide_id: i.tide }, (r) => assert.equal(r.tide.path_id, i.path)],
    missing: {},
    unknown: [{ tide_id: NOPE }, 'ENTITY_NOT_FOUND'],
    wrongType: { tide_id: 1.5 },
  },
  'pattern-create': {
    happy: async (i) => [
      { name: 'Cache warm-up', description: 'Warm caches before traffic arrives.', tide_id: i.tide, reusability_score: 8 },
      (r) => assert.equal(r.pattern.tide_id, i.tide),
    ],
    missing: { name: 'no description' },
    unknown: [{ name: 'x', description: 'y', tide_id: NOPE }, 'PARENT_NOT_FOUND'],
    wrongType: { name: 'x', description: 'y', difficulty: 'expert' },
  },
  'pattern-list': { happy: async (i) => [{ category: 'error-handling' }, (r) => assert.deepEqual(idsOf(r.patterns), [i.pattern])], wrongType: { category: '' } },
  'pattern-get': {
    happy: async (i) => [{ pattern_id: i.pattern }, (r) => assert.equal(r.pattern.category, 'error-handling')],
    missing: {},
    unknown: [{ pattern_id: NOPE }, 'ENTITY_NOT_FOUND'],
    wrongType: { pattern_id: [] },
  },
  'pattern-search': {
    happy: async (i) => [{ query: 'retry backoff' }, (r) => assert.equal(r.patterns[0].pattern_id, i.pattern)],
    missing: { limit: 3 },
    wrongType: { query: 'x', limit: 500 },
  },
  'search-semantic': {
    happy: async (i) => [{ query: 'PostgreSQL database setup', tables: ['works'] }, (r) => assert.equal(r.hits[0].id, i.work)],
    missing: { tables: ['works'] },
    wrongType: { query: 'x', tables: ['people'] },
  },
  'search-hybrid': {
    happy: async (i) => [{ query: 'retry with backoff', tables: ['patterns', 'works'] }, (r) => assert.equal(r.hits[0].id, i.pattern)],
    missing: {},
    wrongType: { query: ['x'] },
  },
  'search-by-tags': { happy: async (i) => [{ tags: ['db'] }, (r) => assert.deepEqual(idsOf(r.items), [i.work])], missing: { match_all: true }, wrongType: { tags: [''] } },
  'health-check': { happy: async () => [{}, (r) => assert.ok(r.counts.phase >= 1)], wrongType: { verbose: 'yes' } },
  'validate-structure': { happy: async () => [{}, (r) => assert.equal(typeof r.valid, 'boolean')], wrongType: { deep: 1 } },
  'export-graph': {
    happy: async (i) => [{ phase_id: i.phase }, (r) => assert.deepEqual([idsOf(r.phases), r.paths.some((p: { id: string }) => p.id === i.path)], [[i.phase], true])],
    unknown: [{ phase_id: NOPE }, 'ENTITY_NOT_FOUND'],
    wrongType: { phase_id: 5 },
  },
};

describe('every operation of seed 002 §2 over POST /api/tool', () => {
  let server: Awaited<ReturnType<typeof startServe>>;
  const ids = {} as Ids;
  useEmbeddedServer((f) => ({ server } = f));

  before(async () => {
    const b = server.baseUrl;
    ids.phase = ok(await api(b, 'phase-create', { what: 'Build MVP for KG4EPIC', success_criteria: { api_working: true } })).phase_id;
    ids.work = ok(await api(b, 'work-create', { what: 'Setup PostgreSQL database', tags: ['db'] })).work_id;
    ids.work2 = ok(await api(b, 'work-create', { what: 'Add test suite' })).work_id;
    ids.path = ok(await api(b, 'path-create', { phase_id: ids.phase, what: 'REST gateway over PostgreSQL' })).path_id;
    ok(await api(b, 'path-add-works', { path_id: ids.path, works: [ids.work, ids.work2] }));
    ids.tide = ok(await api(b, 'tide-create', { path_id: ids.path })).tide_id;
    ids.pattern = ok(
      await api(b, 'pattern-create', { name: 'Retry with backoff', description: 'Retry transient failures with exponential backoff.', category: 'error-handling' }),
    ).pattern_id;
  });

  test('the table covers the 31 operations of §2', () => {
    assert.equal(Object.keys(CASES).length, 31);
  });

  for (const [tool, c] of Object.entries(CASES)) {
    test(tool, async () => {
      const [args, check] = await c.happy(ids, server.baseUrl);
      check(ok(await api(server.baseUrl, tool, args)));
      if (c.missing) assert.match(failed(await api(server.baseUrl, tool, c.missing), 'REQUIRED_FIELD_MISSING', 400).error, /Required field '\w+' is missing/);
      if (c.unknown) {
        const [unknownArgs, code] = c.unknown;
        const body = failed(await api(server.baseUrl, tool, unknownArgs), code, 404);
        assert.match(body.error, new RegExp(`'${NOPE}'`), 'the message names the missing id');
        assert.match(body.error, /^(Phase|Work|Path|Tide|Pattern) with ID/, 'and what kind of entity it is');
      }
      failed(await api(server.baseUrl, tool, c.wrongType), 'INVALID_FIELD_FORMAT', 400);
    });
  }
});
