import assert from 'node:assert/strict';

/** A REST gateway answer: the HTTP status and the parsed envelope. */
export interface RestAnswer {
  status: number;
  body: any;
}

/** POST /api/tool with `{"tool", "arguments"}`, through fetch against the real server. */
export async function api(baseUrl: string, tool: string, args: unknown = {}): Promise<RestAnswer> {
  return post(baseUrl, JSON.stringify({ tool, arguments: args }));
}

/** POST a raw body (for malformed requests). */
export async function post(baseUrl: string, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }): Promise<RestAnswer> {
  const res = await fetch(`${baseUrl}/api/tool`, { method: 'POST', headers, body });
  return { status: res.status, body: await res.json() };
}

/** Asserts a success envelope and returns its result. */
export function ok(a: RestAnswer): any {
  assert.equal(a.status, 200, JSON.stringify(a.body));
  assert.equal(a.body.success, true);
  assert.ok(Array.isArray(a.body.result.content) && a.body.result.content.length > 0, 'result.content is a non-empty array');
  for (const block of a.body.result.content) assert.deepEqual(Object.keys(block).sort(), ['text', 'type']);
  return a.body.result;
}

/** Asserts a failure envelope with this REST code and HTTP status; returns the body. */
export function failed(a: RestAnswer, code: string, status: number): any {
  assert.equal(a.body.success, false, JSON.stringify(a.body));
  assert.equal(a.body.error_code, code, JSON.stringify(a.body));
  assert.equal(a.status, status, JSON.stringify(a.body));
  assert.equal(typeof a.body.error, 'string');
  assert.ok(a.body.error.length > 10, 'a clear message');
  assert.ok(!/at \w+ \(|\.ts:|\.js:|node_modules/.test(a.body.error), `no internals: ${a.body.error}`);
  return a.body;
}
