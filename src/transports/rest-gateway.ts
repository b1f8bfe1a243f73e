import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app.js';
import { AppError, toErrorPayload, type ToolErrorPayload } from '../errors.js';
import { restErrorOf, type RestErrorCode } from '../errors-rest.js';
import { openApiDocument } from '../mcp/openapi.js';
import { compiledTools, SessionToolsets } from '../mcp/toolsets.js';
import { TOOL_NAME_ALIASES, TOOLSETS } from '../tools/index.js';
import type { ToolContext } from '../tools/kit/context.js';
import { invoke, type CompiledTool, type Invoked } from '../tools/kit/invoke.js';
import { callerJobs } from '../tools/kit/jobs.js';
import { changeEventRoutes } from './change-events.js';
import { jobEventRoutes } from './job-events.js';
import { JobReplay } from './job-replay.js';
import type { JobRunner } from '../services/index.js';
import { HttpError, sendJson, type HttpTransport, type RequestContext, type Route } from './http-server.js';

/**
 * seed 002's REST gateway: `POST /api/tool {"tool", "arguments"}`, one more adapter over the
 * tool kit's `invoke`, so every MCP tool answers here with the same validation and the same
 * registry errors. The envelope is exact: `{"success": true, "result": {"content": [text
 * blocks], …structured payload}}` or `{"success": false, "error", "error_code", "details"}`.
 * Tool names are the MCP ones (`phase_create`) or seed 002's (`phase-create`).
 */
export const REST_TOOL_PATH = '/api/tool';
export const OPENAPI_PATH = '/api/openapi.json';

/** Request fields other clients send by mistake; refused with a pointer to `arguments` (seed 002 §1.2). */
const WRONG_ARGUMENT_FIELDS = ['args', 'params', 'parameters', 'input'];

export type RestEnvelope =
  | { success: true; result: Record<string, unknown> & { content: Array<{ type: 'text'; text: string }> } }
  | { success: false; error: string; error_code: RestErrorCode; details: Record<string, unknown> };

class EnvelopeError extends Error {
  constructor(
    readonly status: number,
    readonly code: RestErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** The MCP tool a REST name means: the exact name, or seed 002's hyphenated spelling. */
export function resolveTool(name: string): CompiledTool | undefined {
  const tools = compiledTools();
  return tools.get(TOOL_NAME_ALIASES.get(name) ?? name) ?? tools.get(name.replace(/-/g, '_'));
}

/** A successful (or needsInput) call as the envelope: text blocks by format, the payload beside them. */
export function successEnvelope(invoked: Extract<Invoked, { status: 'ok' | 'needsInput' }>): RestEnvelope {
  const { format, payload, markdown } = invoked;
  const json = JSON.stringify(payload);
  const texts = format === 'json' ? [json] : format === 'both' ? [markdown, json] : [markdown];
  // `content` is the envelope's: a payload field of that name would be shadowed, so none has one.
  return { success: true, result: { ...payload, content: texts.map((text) => ({ type: 'text' as const, text })) } };
}

export function errorEnvelope(error: ToolErrorPayload): { status: number; body: RestEnvelope } {
  const { code, status } = restErrorOf(error);
  return {
    status,
    body: {
      success: false,
      error: error.message,
      error_code: code,
      details: { code: error.code, rpc_code: error.rpc_code, retryable: error.retryable, hint: error.hint, ...(error.details ?? {}) },
    },
  };
}

function send(res: ServerResponse, status: number, body: RestEnvelope, headers: Record<string, string> = {}): void {
  sendJson(res, status, body, headers);
}

function refuse(res: ServerResponse, err: EnvelopeError, headers: Record<string, string> = {}): void {
  send(res, err.status, { success: false, error: err.message, error_code: err.code, details: err.details }, headers);
}

/** Reads and checks the envelope; anything wrong with it is an EnvelopeError naming the fix. */
async function readEnvelope(req: IncomingMessage, ctx: RequestContext): Promise<{ tool: string; args: unknown }> {
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (!/^application\/json\s*(;|$)/.test(type)) {
    throw new EnvelopeError(415, 'INVALID_REQUEST', `Content-Type must be application/json${type ? `, not ${type}` : ' (the header is missing)'}.`);
  }
  let body: unknown;
  try {
    body = await ctx.readJson();
  } catch (err) {
    if (err instanceof HttpError && err.status === 400) throw new EnvelopeError(400, 'INVALID_REQUEST', 'Malformed JSON: the request body could not be parsed.');
    if (err instanceof HttpError) throw new EnvelopeError(err.status, 'INVALID_REQUEST', err.message);
    throw err;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new EnvelopeError(400, 'INVALID_REQUEST', 'The request body must be a JSON object: {"tool": "…", "arguments": {…}}.');
  }
  const fields = body as Record<string, unknown>;
  const wrong = WRONG_ARGUMENT_FIELDS.filter((f) => f in fields);
  if (wrong.length) {
    throw new EnvelopeError(400, 'INVALID_FIELD_FORMAT', `Field '${wrong[0]}' is not accepted: put the tool's parameters under "arguments".`, {
      field: wrong[0],
      expected: 'arguments',
    });
  }
  const unknown = Object.keys(fields).filter((k) => k !== 'tool' && k !== 'arguments');
  if (unknown.length) throw new EnvelopeError(400, 'INVALID_FIELD_FORMAT', `Unknown field '${unknown[0]}': the request has only "tool" and "arguments".`, { field: unknown[0] });
  if (fields.tool === undefined || fields.tool === null || fields.tool === '')
    throw new EnvelopeError(400, 'REQUIRED_FIELD_MISSING', "Required field 'tool' is missing.", { field: 'tool' });
  if (typeof fields.tool !== 'string')
    throw new EnvelopeError(400, 'INVALID_FIELD_FORMAT', 'Field \'tool\' must be a string (a tool name such as "phase-create").', { field: 'tool' });
  return { tool: fields.tool, args: fields.arguments ?? {} };
}

function closestNames(name: string): string[] {
  const wanted = name.replace(/-/g, '_').toLowerCase();
  const words = wanted.split('_').filter(Boolean);
  return [...compiledTools().keys()]
    .map((n) => ({ n, score: words.filter((w) => n.includes(w)).length }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || (a.n < b.n ? -1 : 1))
    .slice(0, 5)
    .map((x) => x.n);
}

/**
 * RFC 7240 `Prefer: respond-async`: a tool that runs a job answers "accepted" with the job id at
 * once instead of waiting for it; the client follows it at `GET /api/jobs/{id}/events`.
 */
export function prefersAsync(req: IncomingMessage): boolean {
  const prefer = req.headers.prefer;
  return (Array.isArray(prefer) ? prefer.join(',') : (prefer ?? '')).split(/[,;]/).some((p) => p.trim().toLowerCase() === 'respond-async');
}

/**
 * The app's runner for one REST call: every job it starts is recorded for late followers; an
 * async call does not wait (`deferred` says whether one was started that way).
 */
function restJobs(app: App, replay: JobReplay, async: boolean): JobRunner & { deferred: boolean } {
  return {
    deferred: false,
    enqueue: (job, payload, options) => app.jobs.enqueue(job, payload, options),
    run(job, payload, options = {}) {
      if (async) this.deferred = true;
      return app.jobs.run(job, payload, {
        ...options,
        ...(async ? { waitMs: 0 } : {}),
        onEnqueued(id) {
          replay.record(id);
          options.onEnqueued?.(id);
        },
      });
    },
  };
}

export function restGateway(app: App): HttpTransport {
  const replay = new JobReplay(app.queue.events);
  async function callTool(req: IncomingMessage, res: ServerResponse, ctx: RequestContext): Promise<void> {
    let envelope: { tool: string; args: unknown };
    try {
      envelope = await readEnvelope(req, ctx);
    } catch (err) {
      if (err instanceof EnvelopeError) return refuse(res, err);
      throw err;
    }
    const tool = resolveTool(envelope.tool);
    if (!tool) {
      const suggestions = closestNames(envelope.tool);
      const payload = toErrorPayload(
        new AppError(
          'UNKNOWN_TOOL',
          `Unknown tool: ${envelope.tool}.${suggestions.length ? ` Did you mean ${suggestions.join(', ')}?` : ''} GET ${OPENAPI_PATH} lists every tool.`,
          {
            tool: envelope.tool,
            suggestions,
          },
        ),
        app.logger,
      );
      const { status, body } = errorEnvelope(payload);
      return send(res, status, body);
    }
    // The call stops when the client goes away (a long job wait ends with it).
    const abort = new AbortController();
    res.once('close', () => abort.abort());
    const progress: ToolContext['progress'] = async () => {};
    const runner = restJobs(app, replay, prefersAsync(req));
    const toolCtx: ToolContext = {
      services: app.services,
      actor: 'rest',
      session: null,
      signal: abort.signal,
      progress,
      // No session to switch: every toolset answers here (there is no tools/list to keep small).
      toolsets: new SessionToolsets(new Set(TOOLSETS.map((s) => s.name)), async () => {}),
      jobs: callerJobs(runner, { progress, signal: abort.signal }),
    };
    const invoked = await invoke(tool, envelope.args, toolCtx, app.logger);
    if (invoked.status === 'error') {
      const { status, body } = errorEnvelope(invoked.error);
      return send(res, status, body);
    }
    send(res, 200, successEnvelope(invoked), runner.deferred ? { 'preference-applied': 'respond-async' } : {});
  }

  const wrongMethod = (_req: IncomingMessage, res: ServerResponse) =>
    refuse(res, new EnvelopeError(405, 'INVALID_REQUEST', `${REST_TOOL_PATH} accepts POST only, with {"tool": "…", "arguments": {…}}.`), { allow: 'POST' });

  const routes: Route[] = [
    { method: 'POST', path: REST_TOOL_PATH, handler: callTool },
    ...(['GET', 'PUT', 'PATCH', 'DELETE'] as const).map((method) => ({ method, path: REST_TOOL_PATH, handler: wrongMethod })),
    { method: 'GET', path: OPENAPI_PATH, handler: (_req, res) => sendJson(res, 200, openApiDocument()) },
    ...jobEventRoutes(app, replay),
    ...changeEventRoutes(app),
  ];
  return { routes, close: async () => replay.close() };
}
