import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app.js';
import { AppError, toErrorPayload } from '../errors.js';
import { jobStateSchema } from '../services/job-records.js';
import { sendJson, type RequestContext, type Route } from './http-server.js';
import { errorEnvelope } from './rest-gateway.js';

/**
 * `GET /api/jobs` and `GET /api/jobs/{id}`: the job records of knowledge://jobs as plain JSON for
 * REST and browser clients (the explorer page codes against exactly this shape):
 * `{ jobs: [{ id, name, state, progress, created_at, started_at, finished_at, result?, error? }], next_cursor? }`,
 * newest first; query: state, name, limit (1-100, default 20), cursor (the previous next_cursor).
 * One job answers the record itself; an unknown id is 404 JOB_NOT_FOUND.
 */
export const JOB_PATH = /^\/api\/jobs\/([^/]{1,200})$/;
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

function refuse(res: ServerResponse, app: App, err: AppError): void {
  const { status, body } = errorEnvelope(toErrorPayload(err, app.logger));
  sendJson(res, status, body);
}

function invalid(message: string, field: string): AppError {
  return new AppError('INVALID_PARAMS', message, { issues: [{ path: field, message }] });
}

export function jobRecordRoutes(app: App): { list: Route; one: (res: ServerResponse, ctx: RequestContext) => Promise<boolean> } {
  async function list(_req: IncomingMessage, res: ServerResponse, ctx: RequestContext): Promise<void> {
    const q = ctx.query;
    const rawState = q.get('state') || null;
    const state = rawState === null ? null : jobStateSchema.safeParse(rawState);
    if (state && !state.success) return refuse(res, app, invalid(`Invalid state "${rawState}": one of ${jobStateSchema.options.join(', ')}.`, 'state'));
    const rawLimit = q.get('limit') || null;
    const limit = rawLimit === null ? DEFAULT_LIMIT : Number(rawLimit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) return refuse(res, app, invalid(`Invalid limit "${rawLimit}": an integer from 1 to ${MAX_LIMIT}.`, 'limit'));
    const rawCursor = q.get('cursor') || null;
    const afterKey = rawCursor === null ? null : Number(Buffer.from(rawCursor, 'base64url').toString('utf8'));
    if (afterKey !== null && !Number.isInteger(afterKey)) return refuse(res, app, invalid('Invalid cursor: pass back the next_cursor of the previous page unchanged.', 'cursor'));
    const rows = await app.services.jobRecords.list({ state: state?.data ?? null, name: q.get('name') || null, afterKey, limit: limit + 1 });
    const page = rows.slice(0, limit);
    const more = rows.length > limit;
    sendJson(res, 200, {
      jobs: page.map((r) => r.job),
      ...(more ? { next_cursor: Buffer.from(String(page[page.length - 1]!.key), 'utf8').toString('base64url') } : {}),
    });
  }

  /** Answers `GET /api/jobs/{id}`; false when the path is not that route. */
  async function one(res: ServerResponse, ctx: RequestContext): Promise<boolean> {
    const match = JOB_PATH.exec(ctx.path);
    if (!match) return false;
    const id = decodeURIComponent(match[1]!);
    const found = await app.services.jobRecords.get(id);
    if (!found) refuse(res, app, new AppError('JOB_NOT_FOUND', `No job has id ${id}, or it finished too long ago to be remembered.`, { job_id: id }));
    else sendJson(res, 200, found);
    return true;
  }

  return { list: { method: 'GET', path: '/api/jobs', handler: list }, one };
}
