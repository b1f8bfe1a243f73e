import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app.js';
import { AppError, toErrorPayload } from '../errors.js';
import type { JobProgress } from '../jobs/queue.js';
import { progressOf } from '../tools/kit/jobs.js';
import { HttpError, sendJson, type RequestContext, type Route } from './http-server.js';
import type { JobReplay, ReplayFrame } from './job-replay.js';
import { errorEnvelope } from './rest-gateway.js';
import { jobRecordRoutes } from './job-records.js';

/**
 * `GET /api/jobs/{id}/events`: a job's progress as a text/event-stream for the REST gateway's
 * clients, from JobEvents (so on BullMQ it follows a job that a worker elsewhere runs).
 * Events: `progress` ({job_id, done, total, phase, progress: the job's own report}), then one
 * `completed` ({job_id, result}) or `failed` ({job_id, error}), after which the stream ends.
 * A job that already finished answers its last event at once; an unknown one 404 JOB_NOT_FOUND.
 * A job this front end started for a REST call (`replay`) is answered from its first report on,
 * however late the client connects.
 */
export const JOB_EVENTS_PATH = /^\/api\/jobs\/([^/]{1,200})\/events$/;

/** How often a comment line goes out while a job is quiet, so proxies keep the stream open. */
const KEEPALIVE_MS = 15_000;

function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export function progressEvent(jobId: string, progress: JobProgress): Record<string, unknown> {
  const n = progressOf(progress);
  return { job_id: jobId, done: n?.progress ?? null, total: n?.total ?? null, phase: n?.message ?? null, progress };
}

export function jobEventRoutes(app: App, replay?: JobReplay): Route[] {
  const records = jobRecordRoutes(app);
  async function stream(_req: IncomingMessage, res: ServerResponse, ctx: RequestContext): Promise<void> {
    const match = JOB_EVENTS_PATH.exec(ctx.path);
    if (!match && (await records.one(res, ctx))) return;
    if (!match) throw new HttpError(404, 'NOT_FOUND', `No route for GET ${ctx.path}; job events are at /api/jobs/{id}/events.`);
    const jobId = decodeURIComponent(match[1]!);
    const events = app.queue.events;
    const pending: string[] = [];
    let write = (text: string) => void pending.push(text);
    let finished = false;
    const end = (text: string) => {
      if (finished) return;
      finished = true;
      write(text);
      stop();
    };
    const deliver = (f: ReplayFrame) => {
      if (f.event === 'progress') return void (!finished && write(frame('progress', progressEvent(jobId, f.progress))));
      end(f.event === 'completed' ? frame('completed', { job_id: jobId, result: f.result }) : frame('failed', { job_id: jobId, error: f.error }));
    };
    // Subscribed before the state is read, so nothing between the two is missed.
    const followed = replay?.follow(jobId, deliver);
    const offs = followed
      ? [followed.off]
      : [
          events.onProgress(jobId, (progress) => deliver({ event: 'progress', progress })),
          events.onCompleted(jobId, (result) => deliver({ event: 'completed', result })),
          events.onFailed(jobId, (err) => deliver({ event: 'failed', error: err.message })),
        ];
    // Comments only once the stream has begun (a 404 may still be answered before that).
    const keepalive = setInterval(() => res.headersSent && !finished && res.write(': keepalive\n\n'), KEEPALIVE_MS);
    keepalive.unref();
    function stop(): void {
      for (const off of offs) off();
      clearInterval(keepalive);
      if (res.headersSent) res.end();
    }
    res.once('close', stop);
    for (const f of followed?.past ?? []) deliver(f);
    const info = (await app.queue.state?.(jobId)) ?? { state: 'unknown' as const };
    if (info.state === 'unknown' && !finished && !followed) {
      stop();
      const { status, body } = errorEnvelope(
        toErrorPayload(new AppError('JOB_NOT_FOUND', `No job has id ${jobId}, or it finished too long ago to be remembered.`, { job_id: jobId }), app.logger),
      );
      return sendJson(res, status, body);
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    write = (text) => void res.write(text);
    for (const text of pending) res.write(text);
    if (info.state === 'completed') end(frame('completed', { job_id: jobId, result: info.result }));
    else if (info.state === 'failed') end(frame('failed', { job_id: jobId, error: info.error }));
    if (finished) return stop();
    res.write(frame('state', { job_id: jobId, state: info.state }));
  }
  return [{ method: 'GET', path: '/api/jobs/*', handler: stream }, records.list];
}
