// The page's one door to the server: same origin, the bearer token the user gave (kept for this
// tab only, in sessionStorage), and writes refused unless the "enable writes" switch is on.

const TOKEN_KEY = 'context-graph.token';
/** Tools that change the store or start work; the page sends them only with writes enabled. */
export const WRITE_TOOLS = new Set(['undo', 'relate', 'trigger_dream', 'trigger_consolidation', 'abort_dream', 'store']);

const listeners = { unauthorized: new Set(), writes: new Set() };
let writesEnabled = false;

export function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function setToken(value) {
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
}

export function on(event, fn) {
  listeners[event].add(fn);
}

export function writes() {
  return writesEnabled;
}

export function setWrites(on) {
  writesEnabled = Boolean(on);
  for (const fn of listeners.writes) fn(writesEnabled);
}

/** A refusal or failure with the server's own words. */
export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

function headers(extra = {}) {
  const t = token();
  return { ...extra, ...(t ? { authorization: `Bearer ${t}` } : {}) };
}

async function failure(res) {
  let body = {};
  try {
    body = await res.json();
  } catch {
    // not JSON
  }
  const err = new ApiError(
    res.status,
    body.error_code ?? body.code ?? `HTTP_${res.status}`,
    body.error && typeof body.error === 'string' && body.success === false ? body.error : (body.message ?? `${res.status} ${res.statusText}`),
    body.details,
  );
  if (res.status === 401) for (const fn of listeners.unauthorized) fn(err);
  return err;
}

/**
 * Calls a tool through POST /api/tool and answers its result (the structured payload). `async`
 * asks a job-running tool to answer "accepted" with the job id at once (Prefer: respond-async).
 */
export async function callTool(tool, args = {}, { async = false } = {}) {
  if (WRITE_TOOLS.has(tool) && !writesEnabled) throw new ApiError(0, 'WRITES_DISABLED', `${tool} changes the memory: turn on "Enable writes" first.`);
  const res = await fetch('/api/tool', {
    method: 'POST',
    headers: headers({ 'content-type': 'application/json', ...(async ? { prefer: 'respond-async' } : {}) }),
    body: JSON.stringify({ tool, arguments: args }),
  });
  if (!res.ok) throw await failure(res);
  const body = await res.json();
  if (!body.success) throw new ApiError(res.status, body.error_code, body.error, body.details);
  return body.result;
}

/** GET a JSON document of the server (e.g. /healthz, /api/jobs). */
export async function getJson(path) {
  const res = await fetch(path, { headers: headers({ accept: 'application/json' }) });
  if (!res.ok) throw await failure(res);
  return res.json();
}

/**
 * Follows a text/event-stream with fetch (EventSource cannot send the token): calls onEvent(name,
 * data) per event until the stream ends or `signal` aborts; onOpen() once it is connected.
 */
export async function streamEvents(path, onEvent, signal, onOpen) {
  const res = await fetch(path, { headers: headers({ accept: 'text/event-stream' }), signal });
  if (!res.ok) throw await failure(res);
  onOpen?.();
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        let event = 'message';
        let data = '';
        for (const line of block.split('\n')) {
          if (line.startsWith('event:')) event = line.slice(6).trim();
          else if (line.startsWith('data:')) data += line.slice(5).replace(/^ /, '');
        }
        if (!data) continue;
        let parsed = data;
        try {
          parsed = JSON.parse(data);
        } catch {
          // plain text data
        }
        onEvent(event, parsed);
      }
    }
  } catch (err) {
    if (signal?.aborted) return;
    throw err;
  }
}
