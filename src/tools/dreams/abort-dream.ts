import * as z from 'zod';
import { defineTool, WRITE } from '../kit/define.js';
import { projectIdField } from '../kit/fields.js';
import { aliased } from '../kit/aliases.js';
import { dreamRunSchema, dreamRunView } from './get-dream-status.js';

const input = z.strictObject({
  dream_id: z.string().trim().min(1).max(64).optional().describe("The run to stop; the project's queued or running one when omitted."),
  project_id: aliased(projectIdField.default('default').describe('Whose open run to stop when dream_id is omitted.'), 'project'),
});

const output = z.object({
  kind: z.literal('dreamAbort:v1'),
  requested: z.boolean().describe('False when the run had already finished (nothing to stop).'),
  dream: dreamRunSchema,
});

export const abortDreamTool = defineTool({
  name: 'abort_dream',
  title: 'Stop a dream',
  description: `Stops a queued or running dream or consolidation within a second: its job is cancelled and the run's abort flag is set (a worker in another process reads it). The phase in progress rolls back whole — its changes are one transaction that never commits — and phases that already committed stay (undo {tx_id} reverts them). A run that already finished is answered as it is, requested: false.
When to use: a dream is taking too long or runs at a bad time.
Example: {}
Advanced: {"dream_id": "dream-01JA2B3C4D5E6F7G8H9J0K1M2N"}`,
  annotations: WRITE,
  input,
  output,
  async handler(args, ctx) {
    const { row, requested } = await ctx.services.dreams.abort({ dreamId: args.dream_id, projectId: args.project_id });
    return { kind: 'dreamAbort:v1' as const, requested, dream: dreamRunView({ ...row, job_state: 'unknown' }) };
  },
  render(r) {
    return r.requested
      ? `Asked ${r.dream.dream_id} (${r.dream.phase}) to stop; the phase in progress rolls back. get_dream_status shows when it has.`
      : `${r.dream.dream_id} had already finished (${r.dream.status}); nothing to stop.`;
  },
});
