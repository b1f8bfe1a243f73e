import { z } from 'zod';
import { JSONRPC_INVALID_PARAMS, JsonRpcError } from '../../errors.js';
import { jobResourceUri } from '../../tools/kit/jobs.js';
import { jobRecordSchema, jobStateSchema, type JobRecordView } from '../../services/job-records.js';
import { defineResource } from './define.js';
import { PAGING, readPaged } from './paging.js';
import { filterParam } from './uri.js';

/** The page both job resources answer; published as knowledge://schemas/jobs:v1. */
export const jobsPageSchema = z.object({
  kind: z.literal('jobs:v1'),
  resource_uri: z.string(),
  as_of_tx_id: z.number().int(),
  items: z.array(jobRecordSchema),
  next_cursor: z.string().nullable(),
});

interface JobsFilter {
  state: z.output<typeof jobStateSchema> | null;
  name: string | null;
}

function jobsUri({ state, name }: JobsFilter): string {
  const q = new URLSearchParams();
  if (state) q.set('state', state);
  if (name) q.set('name', name);
  const qs = q.toString();
  return `knowledge://jobs${qs ? `?${qs}` : ''}`;
}

export const jobUri = jobResourceUri;

/** A state filter, checked: an unknown state is INVALID_PARAMS naming the allowed ones. */
export function stateParam(raw: string | null): JobsFilter['state'] {
  if (raw === null) return null;
  const parsed = jobStateSchema.safeParse(raw);
  if (!parsed.success) throw new JsonRpcError(JSONRPC_INVALID_PARAMS, `Invalid state "${raw}": one of ${jobStateSchema.options.join(', ')}.`);
  return parsed.data;
}

export const jobs = defineResource({
  name: 'jobs',
  title: 'Jobs',
  uri: 'knowledge://jobs',
  template: 'knowledge://jobs{?state,name,limit,cursor}',
  description: `Recent background jobs (dreams, consolidation, edge building, recalibration, …), newest first, also after they ended: id, name, state (waiting|active|completed|failed|cancelled), latest progress (phase, done, total, message, partial), created_at, started_at, finished_at, result or error {code, message}. Filters: state, name (the job type, e.g. dreams.dream). Finished jobs are kept for a while (in-process: the latest 1,000; BullMQ: its retention). ${PAGING}`,
  version: 1,
  item: jobRecordSchema,
  params: (_vars, query): JobsFilter => ({ state: stateParam(filterParam(query, 'state')), name: filterParam(query, 'name') }),
  canonical: jobsUri,
  async read(filter, ctx) {
    const page = await readPaged(ctx, jobsUri(filter), {
      fetch: (p) => ctx.services.jobRecords.list({ ...filter, afterKey: p.afterKey === null ? null : Number(p.afterKey), limit: p.limit }),
      keyOf: (row: { key: number; job: JobRecordView }) => row.key,
      itemOf: (row) => row.job,
    });
    return { kind: 'jobs:v1', ...page };
  },
  complete: { name: async (value, { services }) => services.jobRecords.names().filter((n) => n.startsWith(value)) },
});

export const job = defineResource({
  name: 'job',
  title: 'One job',
  template: 'knowledge://jobs/{id}',
  description:
    'One background job by the id a tool answered (job_id): its state, latest progress, times, and its result or error; the usual page with the job as its only item. Readable after the job ended, for as long as knowledge://jobs keeps it.',
  version: 1,
  item: jobRecordSchema,
  params: (vars) => ({ id: vars.id! }),
  canonical: ({ id }) => jobUri(id),
  async read({ id }, { services }) {
    const found = await services.jobRecords.get(id);
    if (!found)
      throw JsonRpcError.of('RESOURCE_NOT_FOUND', `Resource not found: no job ${id} (never started here, or finished too long ago to be kept).`, { uri: jobUri(id), job_id: id });
    return { kind: 'jobs:v1', resource_uri: jobUri(id), as_of_tx_id: await services.reads.latestTxId(), items: [found], next_cursor: null };
  },
});
