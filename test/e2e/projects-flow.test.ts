import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, type startServe, useEmbeddedServer } from '../helpers/cli.js';
import { api, failed, ok } from '../helpers/rest.js';

/**
 * The project-knowledge model end to end over HTTP: a phase → work → path → tide → pattern
 * round trip, optimistic concurrency, and the graph features it gets for free (history, undo,
 * memory search) because its entities are nodes and edges like any other.
 */
describe('the project-knowledge model over the REST gateway', () => {
  let server: Awaited<ReturnType<typeof startServe>>;
  let client: Client;
  useEmbeddedServer((f) => ({ server, client } = f));
  const call2 = (tool: string, args: Record<string, unknown>) => api(server.baseUrl, tool, args);

  test('a full phase / work / path / tide / pattern round trip', async () => {
    const phase = ok(
      await call2('phase-create', {
        what: 'Build MVP for KG4EPIC',
        scope: { apis: ['CRUD', 'Search'], embeddings: ['E5-large-v2'], cost: 'FREE' },
        architecture: { storage: 'PostgreSQL', api: 'RESTful', dims: 1024 },
        success_criteria: { api_working: true, search_working: true },
      }),
    );
    assert.match(phase.phase_id, /^phase_\d+_build_mvp_for_kg4epic$/);
    assert.deepEqual(phase.phase.architecture, { storage: 'PostgreSQL', api: 'RESTful', dims: 1024 }, 'structured fields come back intact');
    assert.equal(phase.phase.version, 1);
    assert.ok(!Number.isNaN(Date.parse(phase.phase.created_at)));

    const w1 = ok(await call2('work-create', { what: 'Setup PostgreSQL database', how: ['install', 'create schema'] })).work_id;
    const w2 = ok(await call2('work-create', { what: 'Create REST API', metrics: { endpoints: 31 } })).work_id;
    const path = ok(await call2('path-create', { phase_id: phase.phase_id, what: 'Express API over pgvector', for_new_session: 'Run docker compose up first.' })).path_id;
    const linked = ok(await call2('path-add-works', { path_id: path, works: [w1, { work_id: w2, purpose: 'serve the model' }] }));
    assert.equal(linked.version, 2, 'linking works is an update of the path');
    failed(await call2('path-add-works', { path_id: path, works: [w1] }), 'DUPLICATE_ID', 409);

    const tide = ok(await call2('tide-create', { path_id: path }));
    assert.equal(tide.tide.number, 1);
    ok(await call2('tide-update-execution', { tide_id: tide.tide_id, execution: { [w1]: { status: 'complete', evidence: 'schema migrated' } } }));
    const progressed = ok(await call2('tide-update-execution', { tide_id: tide.tide_id, execution: { [w2]: { status: 'failed', error: 'port in use' } } }));
    assert.deepEqual(Object.keys(progressed.tide.execution).sort(), [w1, w2].sort(), 'execution entries accumulate');
    assert.ok(!Number.isNaN(Date.parse(progressed.tide.execution[w1].timestamp)));
    const done = ok(await call2('tide-complete', { tide_id: tide.tide_id, outcome: 'partial', learnings: 'Check the port before starting the API server.' }));
    assert.equal(done.tide.status, 'completed');
    const again = failed(await call2('tide-complete', { tide_id: tide.tide_id, outcome: 'success', learnings: 'x' }), 'VALIDATION_FAILED', 422);
    assert.match(again.error, /is completed/);
    assert.equal(ok(await call2('tide-create', { path_id: path })).tide.number, 2, 'the next attempt is number 2');

    const pattern = ok(
      await call2('pattern-create', { name: 'Probe the port first', description: 'Check that the port is free before starting a server.', tide_id: tide.tide_id }),
    ).pattern_id;

    // Searchable text (seed 002 §3.3): a tide's learnings and a path's for_new_session.
    const learned = ok(await call2('search-hybrid', { query: 'check the port before starting', tables: ['tides'] }));
    assert.equal(learned.hits[0].id, tide.tide_id);
    const session = ok(await call2('search-hybrid', { query: 'docker compose', tables: ['paths'] }));
    assert.equal(session.hits[0].id, path);

    const exported = ok(await call2('export-graph', { phase_id: phase.phase_id }));
    assert.deepEqual(exported.counts, { phase: 1, work: 2, path: 1, tide: 2, pattern: 1 });
    assert.equal(exported.patterns[0].pattern_id, pattern);
    assert.equal(ok(await call2('validate-structure', {})).valid, true);
  });

  test('two updates with the same expected_version: one wins, the other gets VALIDATION_FAILED', async () => {
    const id = ok(await call2('work-create', { what: 'Contended work' })).work_id;
    const answers = await Promise.all([
      call2('work-update', { work_id: id, why: 'first', expected_version: 1 }),
      call2('work-update', { work_id: id, why: 'second', expected_version: 1 }),
    ]);
    const won = answers.filter((a) => a.status === 200);
    const lost = answers.filter((a) => a.status !== 200);
    assert.equal(won.length, 1, JSON.stringify(answers.map((a) => a.body)));
    const refusal = failed(lost[0]!, 'VALIDATION_FAILED', 409);
    assert.equal(refusal.details.code, 'VERSION_CONFLICT');
    assert.equal(refusal.details.current_version, 2);
    const now = ok(await call2('work-get', { work_id: id }));
    assert.equal(now.work.version, 2);
    assert.equal(now.work.why, won[0]!.body.result.work.why, 'the winner is what is stored');
  });

  test('every write is a logged transaction: undo reverts a phase update and history names it', async () => {
    const id = ok(await call2('phase-create', { what: 'Undoable phase', status: 'planning' })).phase_id;
    ok(await call2('phase-update', { phase_id: id, status: 'abandoned' }));
    const undone = await call(client, 'undo', { scope: 'all', format: 'json' });
    assert.equal(undone.isError, undefined);
    const back = ok(await call2('phase-get', { phase_id: id }));
    assert.deepEqual([back.phase.status, back.phase.version], ['planning', 1]);
    const history = await call(client, 'history', { limit: 5, format: 'json' });
    assert.ok(JSON.stringify(history.structuredContent).includes('phase-update'), 'the op is named in the log');
  });

  test('refused deletes change nothing; a delete is undoable', async () => {
    const phase = ok(await call2('phase-create', { what: 'Parent phase' })).phase_id;
    const path = ok(await call2('path-create', { phase_id: phase, what: 'Child path' })).path_id;
    const refused = failed(await call2('phase-delete', { phase_id: phase }), 'VALIDATION_FAILED', 422);
    assert.match(refused.error, new RegExp(`still referenced by ${path}`));
    ok(await call2('path-delete', { path_id: path }));
    failed(await call2('path-get', { path_id: path }), 'ENTITY_NOT_FOUND', 404);
    ok(await api(server.baseUrl, 'undo', { scope: 'all' }));
    assert.equal(ok(await call2('path-get', { path_id: path })).path.phase_id, phase);
  });

  test('project entities are found by the memory search too (same graph, same index)', async () => {
    const id = ok(await call2('work-create', { what: 'Rotate the signing keys quarterly' })).work_id;
    const found = await call(client, 'search', { query_text: 'rotate signing keys', format: 'json' });
    assert.ok(JSON.stringify(found.structuredContent).includes(id));
  });
});
