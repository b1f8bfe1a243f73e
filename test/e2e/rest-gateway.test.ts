import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, toolError, type startServe, useEmbeddedServer } from '../helpers/cli.js';
import { api, failed, ok, post } from '../helpers/rest.js';

/**
 * seed 002 §1 and §7 over real HTTP: the envelope, each refusal of a malformed request, and
 * parity with the same tool called over MCP (one adapter over the same invoke).
 */
describe('the REST gateway POST /api/tool', () => {
  let server: Awaited<ReturnType<typeof startServe>>;
  let client: Client;
  useEmbeddedServer((f) => ({ server, client } = f));

  describe('seed 002 §7 checklist', () => {
    test('/api/tool responds to POST requests, and {"tool", "arguments"} works', async () => {
      const r = ok(await api(server.baseUrl, 'health-check', {}));
      assert.equal(r.kind, 'projectHealth:v1');
      assert.equal(r.status, 'ok');
    });

    test('responses include `success`; successes include result.content; errors include an `error` string', async () => {
      const good = await api(server.baseUrl, 'phase-list', { limit: 5 });
      assert.equal(typeof good.body.success, 'boolean');
      ok(good);
      const bad = await api(server.baseUrl, 'phase-get', { phase_id: 'phase_99_invalid' });
      assert.equal(bad.body.success, false);
      assert.equal(typeof bad.body.error, 'string');
      assert.equal(bad.body.result, undefined);
    });

    test('phase-create works, returns success and the created id; phase-list returns it', async () => {
      const created = ok(await api(server.baseUrl, 'phase-create', { what: 'Build MVP for KG4EPIC', scope: { apis: ['CRUD', 'Search'] } }));
      assert.match(created.content[0].text, /^Phase created successfully with ID: phase_\d+_build_mvp_for_kg4epic/);
      assert.equal(created.phase_id, created.phase.phase_id);
      const listed = ok(await api(server.baseUrl, 'phase-list', {}));
      assert.ok(listed.phases.some((p: { phase_id: string }) => p.phase_id === created.phase_id));
      assert.match(listed.content[0].text, new RegExp(`Found ${listed.count} phases:[\\s\\S]*${created.phase_id}: Build MVP for KG4EPIC`));
    });

    test('work-create, path-create with a valid phase_id, path-add-works, tide-create and search all succeed', async () => {
      const phase = ok(await api(server.baseUrl, 'phase-create', { what: 'Checklist phase' })).phase_id;
      const work = ok(await api(server.baseUrl, 'work-create', { what: 'Setup PostgreSQL database' })).work_id;
      const path = ok(await api(server.baseUrl, 'path-create', { phase_id: phase, what: 'Checklist path' })).path_id;
      const linked = ok(await api(server.baseUrl, 'path-add-works', { path_id: path, works: [work] }));
      assert.deepEqual(
        linked.path.works.map((w: { work_id: string }) => w.work_id),
        [work],
      );
      const tide = ok(await api(server.baseUrl, 'tide-create', { path_id: path }));
      assert.equal(tide.tide.status, 'running');
      const found = ok(await api(server.baseUrl, 'search-semantic', { query: 'setup PostgreSQL database', tables: ['works'], limit: 5 }));
      assert.equal(found.hits[0].id, work);
      assert.match(found.content[0].text, /\[WORK\] work_\d+_setup_postgresql_database: Setup PostgreSQL database\n {3}Similarity: /);
    });

    test('missing required fields return clear errors; invalid references return "not found" errors', async () => {
      const missing = failed(await api(server.baseUrl, 'phase-create', {}), 'REQUIRED_FIELD_MISSING', 400);
      assert.match(missing.error, /Required field 'what' is missing/);
      const notFound = failed(await api(server.baseUrl, 'phase-get', { phase_id: 'phase_99_invalid' }), 'ENTITY_NOT_FOUND', 404);
      assert.match(notFound.error, /^Phase with ID 'phase_99_invalid' not found/);
      const parent = failed(await api(server.baseUrl, 'path-create', { phase_id: 'phase_99_invalid', what: 'x' }), 'PARENT_NOT_FOUND', 404);
      assert.match(parent.error, /Phase with ID 'phase_99_invalid' \(field 'phase_id'\) not found/);
    });

    test('malformed JSON returns an appropriate error', async () => {
      const r = failed(await post(server.baseUrl, '{"tool": "phase-list", "arguments": {'), 'INVALID_REQUEST', 400);
      assert.match(r.error, /Malformed JSON/);
    });
  });

  describe('refusals, each with the envelope and its HTTP status', () => {
    test('`args` and `params` are refused, naming `arguments`', async () => {
      for (const field of ['args', 'params']) {
        const r = failed(await post(server.baseUrl, JSON.stringify({ tool: 'phase-list', [field]: {} })), 'INVALID_FIELD_FORMAT', 400);
        assert.match(r.error, new RegExp(`Field '${field}' is not accepted: put the tool's parameters under "arguments"`));
      }
    });

    test('a missing, empty or non-string `tool`', async () => {
      assert.match(failed(await post(server.baseUrl, JSON.stringify({ arguments: {} })), 'REQUIRED_FIELD_MISSING', 400).error, /Required field 'tool' is missing/);
      failed(await post(server.baseUrl, JSON.stringify({ tool: '' })), 'REQUIRED_FIELD_MISSING', 400);
      failed(await post(server.baseUrl, JSON.stringify({ tool: 42 })), 'INVALID_FIELD_FORMAT', 400);
    });

    test('an unknown tool is TOOL_NOT_FOUND (404) with close names; the MCP code stays in details', async () => {
      const r = failed(await api(server.baseUrl, 'phase-crate', {}), 'TOOL_NOT_FOUND', 404);
      assert.match(r.error, /Unknown tool: phase-crate/);
      assert.equal(r.details.code, 'UNKNOWN_TOOL');
      assert.equal(r.details.rpc_code, -32601);
      assert.ok(r.details.suggestions.includes('phase_create'));
    });

    test('a body that is not an object, or has extra fields, or `arguments` that is not an object', async () => {
      failed(await post(server.baseUrl, '[1, 2]'), 'INVALID_REQUEST', 400);
      failed(await post(server.baseUrl, JSON.stringify({ tool: 'phase-list', arguments: {}, extra: 1 })), 'INVALID_FIELD_FORMAT', 400);
      const r = failed(await post(server.baseUrl, JSON.stringify({ tool: 'phase-list', arguments: 'limit=5' })), 'INVALID_FIELD_FORMAT', 400);
      assert.equal(r.details.code, 'INVALID_PARAMS');
    });

    test('a wrong content type is 415 and a wrong method 405 with Allow: POST', async () => {
      failed(await post(server.baseUrl, '{"tool": "phase-list"}', { 'content-type': 'text/plain' }), 'INVALID_REQUEST', 415);
      failed(await post(server.baseUrl, '{"tool": "phase-list"}', {}), 'INVALID_REQUEST', 415);
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const res = await fetch(`${server.baseUrl}/api/tool`, { method });
        assert.equal(res.status, 405);
        assert.equal(res.headers.get('allow'), 'POST');
        const body = (await res.json()) as { success: boolean; error_code: string; error: string };
        assert.equal(body.success, false);
        assert.match(body.error, /accepts POST only/);
      }
    });

    test('seed 002 names and MCP names reach the same tool; arguments default to {}', async () => {
      const a = ok(await post(server.baseUrl, JSON.stringify({ tool: 'validate-structure' })));
      const b = ok(await api(server.baseUrl, 'validate_structure', {}));
      assert.equal(a.kind, 'structureReport:v1');
      assert.deepEqual(a.checked, b.checked);
    });
  });

  describe('parity with MCP', () => {
    test('a read answers the same payload over REST and over MCP', async () => {
      const phase = ok(await api(server.baseUrl, 'phase-create', { what: 'Parity phase', success_criteria: { same: true } })).phase_id;
      const rest = ok(await api(server.baseUrl, 'phase-get', { phase_id: phase }));
      const mcp = await call(client, 'phase_get', { phase_id: phase, format: 'json' });
      const { content: _content, ...restPayload } = rest;
      assert.deepEqual(mcp.structuredContent, restPayload);
      assert.deepEqual(JSON.parse((mcp.content[0] as { text: string }).text), restPayload);
    });

    test('a memory tool of the core toolset is callable through the gateway too', async () => {
      const stored = ok(await api(server.baseUrl, 'store', { content: 'The gateway stores memories like MCP does.', topic: 'gateway' }));
      assert.equal(stored.kind, 'stored:v1');
      const mcp = await call(client, 'query', { topic: 'gateway', format: 'json' });
      assert.ok(JSON.stringify(mcp.structuredContent).includes(stored.id));
    });

    test('a validation failure has the same registry code and message on both', async () => {
      const rest = failed(await api(server.baseUrl, 'work-create', { what: 5 }), 'INVALID_FIELD_FORMAT', 400);
      const mcp = toolError(await call(client, 'work_create', { what: 5 }))!;
      assert.equal(rest.details.code, mcp.code);
      assert.equal(rest.error, mcp.message);
      assert.deepEqual(rest.details.issues, mcp.details.issues);
    });
  });

  test('GET /api/openapi.json describes every tool from its schemas', async () => {
    const doc = (await (await fetch(`${server.baseUrl}/api/openapi.json`)).json()) as any;
    assert.equal(doc.openapi, '3.1.0');
    const request = doc.components.schemas['phase_create.request'];
    assert.deepEqual(request.properties.tool.enum, ['phase_create', 'phase-create']);
    assert.deepEqual(request.properties.arguments.required, ['what']);
    assert.equal(doc.components.schemas['phase_create.result'].properties.kind.const, 'phaseCreated:v1');
    const tools = await client.listTools();
    const described = new Set(Object.keys(doc.components.schemas).filter((k) => k.endsWith('.request')));
    for (const t of tools.tools) assert.ok(described.has(`${t.name}.request`), t.name);
    assert.ok(doc.components.schemas.Error.properties.error_code.enum.includes('PARENT_NOT_FOUND'));
  });
});
