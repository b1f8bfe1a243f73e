import * as z from 'zod';
import { ADVERSARIAL_CHECKS, SCAN_MAX_FLAGGED, type ScanResult } from '../../services/diagnostics/adversarial.js';
import { cited, citedIdSchema } from '../curation/cited.js';
import { aliased } from '../kit/aliases.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { projectIdField } from '../kit/fields.js';
import { checksField } from './check-adversarial.js';

const input = z.strictObject({
  project_id: aliased(projectIdField.default('default').describe('The project whose memories to check.'), 'project'),
  checks: checksField.default(['prompt_injection', 'embedding_outlier']).describe('Which checks to run on every memory.'),
});

const output = z.object({
  kind: z.literal('adversarialScan:v1'),
  status: z.enum(['done', 'accepted']).describe('accepted: still running in the background (follow it by job_id).'),
  job_id: z.string().nullable(),
  project_id: z.string(),
  scanned: z.number().int().nullable(),
  flagged_count: z.number().int().nullable(),
  by_check: z.record(z.string(), z.number().int()).nullable(),
  flagged: z
    .array(citedIdSchema.extend({ flagged_by: z.array(z.enum(ADVERSARIAL_CHECKS)), injection_score: z.number().nullable(), reasons: z.array(z.string()) }))
    .describe(`At most ${SCAN_MAX_FLAGGED}; the counts cover all.`),
});

export const scanAdversarialTool = defineTool({
  name: 'scan_adversarial',
  title: 'Scan a project for adversarial memories',
  description: `Runs check_adversarial's checks over every live memory of a project as a background job with progress (each memory against the project's distribution, itself left out of its neighbours). Reads only: quarantine_node or forget_concept act on what it finds.
When to use: after importing text from untrusted sources, or periodically, to find stored prompt injections and outliers.
Example: {}
Advanced: {"project_id": "web-clips", "checks": ["prompt_injection", "embedding_outlier", "content_misalign", "circular_logic"]}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    const { job, payload } = ctx.services.adversarial.scanJob(args.project_id, args.checks);
    const r = await ctx.jobs.run(job, payload);
    const base = { kind: 'adversarialScan:v1' as const, project_id: args.project_id };
    if ('status' in r && r.status === 'accepted') return { ...base, status: 'accepted' as const, job_id: r.jobId, scanned: null, flagged_count: null, by_check: null, flagged: [] };
    const done = r as ScanResult;
    return {
      ...base,
      status: 'done' as const,
      job_id: null,
      scanned: done.scanned,
      flagged_count: done.flagged_count,
      by_check: done.by_check,
      flagged: done.flagged.map((f) => ({ ...cited(f.id), flagged_by: f.flagged_by, injection_score: f.injection_score, reasons: f.reasons })),
    };
  },
  render(r) {
    if (r.status === 'accepted') return `The scan continues in the background (job ${r.job_id}).`;
    const head = `Scanned ${r.scanned} memories: ${r.flagged_count} flagged (${Object.entries(r.by_check ?? {})
      .map(([c, n]) => `${c} ${n}`)
      .join(', ')}).`;
    return [head, ...r.flagged.map((f) => `- ${f.citation}: ${f.flagged_by.join(', ')}${f.injection_score !== null ? ` (injection score ${f.injection_score})` : ''}`)].join('\n');
  },
});
