import * as z from 'zod';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { projectIdField } from '../kit/fields.js';
import { aliased } from '../kit/aliases.js';

const input = z.strictObject({ project_id: aliased(projectIdField.optional().describe('One project (its north star and drift too); all projects when omitted.'), 'project') });

const lastRun = z.object({ at: z.string(), project_id: z.string(), trigger: z.string(), job_id: z.string().nullable(), result: z.record(z.string(), z.unknown()) }).nullable();

const output = z.object({
  kind: z.literal('autonomousStatus:v1'),
  project_id: z.string().nullable(),
  services: z.array(
    z.object({
      name: z.string(),
      tool: z.string().describe('The tool that runs it on demand.'),
      schedule: z.record(z.string(), z.unknown()).nullable().describe('Scheduled passes (CONTEXT_GRAPH_AUTONOMY_INTERVAL_MINUTES; off by default); null: on demand only.'),
      runs: z.number().int(),
      last_run: lastRun,
    }),
  ),
  north_star: z.object({ id: z.string(), label: z.string(), source: z.string(), created_at: z.string() }).nullable(),
  drift: z.object({ ewma: z.number(), drift: z.number(), level: z.string() }).nullable(),
});

export const getAutonomousStatusTool = defineTool({
  name: 'get_autonomous_status',
  title: 'Autonomous services: schedule, last runs, results',
  description: `The autonomous services (north star bootstrap, drift correction, λ recalibration): their schedule (off unless CONTEXT_GRAPH_AUTONOMY_INTERVAL_MINUTES is set), how often they ran and their last run's trigger and result; for a project also its north star and drift.
When to use: to see what the store did on its own and when.
Example: {}
Advanced: {"project_id": "team-x", "format": "json"}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    return { kind: 'autonomousStatus:v1' as const, ...(await ctx.services.autonomy.status(args.project_id ?? null)) };
  },
  render(r) {
    const lines = r.services.map(
      (s) =>
        `- ${s.name} (${s.tool}): ${s.runs} run(s)${s.last_run ? `, last ${s.last_run.at} (${s.last_run.trigger})` : ''}; schedule ${s.schedule ? (s.schedule['enabled'] ? `every ${String(s.schedule['interval_minutes'])} min` : 'off') : 'on demand'}`,
    );
    const star = r.north_star ? `\nNorth star: ${r.north_star.label}${r.drift ? ` (drift ${r.drift.level}, ${r.drift.drift})` : ''}` : '';
    return `Autonomous services${r.project_id ? ` of ${r.project_id}` : ''}:\n${lines.join('\n')}${star}`;
  },
});
