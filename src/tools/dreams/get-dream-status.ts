import * as z from 'zod';
import type { DreamRow } from '../../services/dreams/dreams.js';
import { phaseRecord } from '../../services/dreams/job.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { isoDate, projectIdField } from '../kit/fields.js';
import { aliased } from '../kit/aliases.js';

export const dreamRunSchema = z.object({
  dream_id: z.string(),
  project_id: z.string(),
  phase: z.string().describe('nrem, rem, full or consolidation.'),
  status: z.enum(['queued', 'running', 'completed', 'aborted', 'failed']),
  job_state: z.string().describe("The job's state on the queue (waiting, active, completed, failed, unknown once forgotten)."),
  actor: z.string().nullable(),
  budget: z.record(z.string(), z.unknown()),
  phases: z.array(phaseRecord),
  tx_ids: z.array(z.number().int()).describe('Transactions of the committed phases, oldest first.'),
  error: z.string().nullable(),
  abort_requested_at: isoDate.nullable(),
  created_at: isoDate,
  started_at: isoDate.nullable(),
  finished_at: isoDate.nullable(),
});

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function dreamRunView(r: DreamRow & { job_state: string }): z.output<typeof dreamRunSchema> {
  return {
    dream_id: r.id,
    project_id: r.project_id,
    phase: r.phase,
    status: r.status,
    job_state: r.job_state,
    actor: r.actor,
    budget: r.budget,
    phases: r.phases,
    tx_ids: r.phases.flatMap((p) => (p.tx_id ? [p.tx_id] : [])),
    error: r.error,
    abort_requested_at: iso(r.abort_requested_at),
    created_at: iso(r.created_at)!,
    started_at: iso(r.started_at),
    finished_at: iso(r.finished_at),
  };
}

const input = z.strictObject({
  dream_id: z.string().trim().min(1).max(64).optional().describe('One run (as trigger_dream or trigger_consolidation answered); the recent runs when omitted.'),
  project_id: aliased(projectIdField.optional().describe('Only this project’s runs (all projects when omitted).'), 'project'),
  limit: z.number().int().min(1).max(50).default(10),
});

const output = z.object({
  kind: z.literal('dreamStatus:v1'),
  running: z.array(dreamRunSchema).describe('Queued or running now.'),
  recent: z.array(dreamRunSchema).describe('Finished runs, newest first.'),
});

export const getDreamStatusTool = defineTool({
  name: 'get_dream_status',
  title: 'Running and recent dreams',
  description: `The dreams and consolidations that are queued or running, and the latest finished ones: phase, status, the queue's job state, each committed phase's counts (memories replayed, edges strengthened, associations, summaries, decayed edges, shortcuts) and transaction id, and errors or abort requests.
When to use: to follow a dream that answered "accepted", or to find the transaction to undo after a dream.
Example: {}
Advanced: {"dream_id": "dream-01JA2B3C4D5E6F7G8H9J0K1M2N"}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    const rows = (await ctx.services.dreams.status({ dreamId: args.dream_id, projectId: args.project_id ?? null, limit: args.limit })).map(dreamRunView);
    return {
      kind: 'dreamStatus:v1' as const,
      running: rows.filter((r) => r.status === 'queued' || r.status === 'running'),
      recent: rows.filter((r) => r.status !== 'queued' && r.status !== 'running'),
    };
  },
  render(r) {
    const line = (d: z.output<typeof dreamRunSchema>) =>
      `- ${d.dream_id} (${d.phase}, project ${d.project_id}): ${d.status}${d.tx_ids.length ? `, transactions ${d.tx_ids.join(', ')}` : ''}${
        d.phases.length
          ? ` — ${d.phases
              .map(
                (p) =>
                  `${p.phase}: ${Object.entries(p.counts)
                    .map(([k, v]) => `${k} ${v}`)
                    .join(', ')}`,
              )
              .join('; ')}`
          : ''
      }${d.error ? ` — ${d.error}` : ''}`;
    return [`Running: ${r.running.length ? '' : 'none'}`, ...r.running.map(line), `Recent: ${r.recent.length ? '' : 'none'}`, ...r.recent.map(line)].join('\n');
  },
});
