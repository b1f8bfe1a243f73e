import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { AppError } from '../../errors.js';
import { citation } from '../../ids.js';
import { samplingPrompt, SUMMARY_JOB_MIN_SOURCES, SUMMARY_MAX_SOURCES, summaryJob, summaryResult, type SummaryRequest } from '../../services/summaries.js';
import type { ToolContext } from '../kit/context.js';
import { defineTool, WRITE } from '../kit/define.js';
import { projectIdField, tagsField, timeRangeField } from '../kit/fields.js';

const input = z.strictObject({
  project_id: projectIdField.optional().describe('Only this project (default: every project).'),
  time_range: timeRangeField.describe('The memories recorded in [start, end] are summarized (either bound may be left open).'),
  tags: tagsField.optional().describe('Only memories carrying at least one of these tags.'),
  store: z.boolean().default(false).describe('true: also store the summary as a memory of kind summary, linked to its sources (undoable), so later searches find it.'),
});

const output = summaryResult.extend({
  kind: z.literal('summary:v1'),
  job_id: z.string().nullable().describe('Set when the range was large enough to run as a job.'),
});

const SYSTEM = 'You summarize memory notes for an agent. Answer with the summary only: no preamble, each fact once, in time order, citing [node_…] tags.';

/** The client's model summarizes when it offers sampling; null falls back to sentence selection. */
async function sampled(ctx: ToolContext, nodes: Parameters<typeof samplingPrompt>[0]): Promise<SummaryRequest['sampled']> {
  if (!ctx.sampling) return null;
  const { prompt, sourceIds } = samplingPrompt(nodes);
  try {
    const r = await ctx.sampling.complete({ prompt, system: SYSTEM, maxTokens: 1_024 });
    return r.text.trim() ? { text: r.text.trim(), model: r.model, source_ids: sourceIds } : null;
  } catch {
    // A client that declared sampling but refused or failed: the extractive summary answers.
    return null;
  }
}

export const summarizeTool = defineTool({
  name: 'summarize',
  title: 'Summarize a time range',
  description: `Summarize the memories recorded in a time range (optionally one project, optionally tags, contains-any), oldest first. The client's own model writes the summary through MCP sampling when the client offers it; otherwise an extractive summary picks salient, de-duplicated sentences in time order, each followed by its source's [node_…] citation. \`method\` says which answered. Reads at most ${SUMMARY_MAX_SOURCES} memories; more than ${SUMMARY_JOB_MIN_SOURCES} run as a job with progress. store: true also stores the summary as a memory of kind summary with Relational "summarizes" edges to its sources, in one undoable transaction.
When to use: to catch up on what happened in a period ("what did we decide last week?") or to condense a project's history into one memory.
Example: {"time_range": {"start": "2026-11-01T00:00:00Z", "end": "2026-11-08T00:00:00Z"}}
Advanced: {"project_id": "payments", "time_range": {"start": "2026-10-01T00:00:00Z"}, "tags": ["decision"], "store": true}`,
  annotations: WRITE,
  input,
  output,
  async handler(args, ctx) {
    const nodes = await ctx.services.summaries.select({ projectId: args.project_id, start: args.time_range.start, end: args.time_range.end, tags: args.tags });
    const range = { start: args.time_range.start?.toISOString() ?? null, end: args.time_range.end?.toISOString() ?? null };
    const req: SummaryRequest = {
      source_ids: nodes.map((n) => n.id),
      sampled: nodes.length > 0 ? await sampled(ctx, nodes) : null,
      store: args.store,
      project_id: args.project_id ?? nodes[0]?.project_id ?? 'default',
      time_range: range,
      tags: args.tags ?? [],
      actor: ctx.actor,
    };
    if (nodes.length <= SUMMARY_JOB_MIN_SOURCES) return { kind: 'summary:v1' as const, ...(await ctx.services.summaries.summarize(req)), job_id: null };
    const jobId = `summarize-${randomUUID()}`;
    const ran = await ctx.jobs.run(summaryJob, req, { jobId, waitMs: Infinity });
    if ('status' in ran && ran.status === 'accepted') throw new AppError('INTERNAL', `summarize job ${jobId} did not finish`);
    const result = ran as z.output<typeof summaryResult>;
    await ctx.services.summaries.settle(result.stored_id);
    return { kind: 'summary:v1' as const, ...result, job_id: jobId };
  },
  render(r) {
    if (r.sources_read === 0) return 'No memories were recorded in that range (with those filters): nothing to summarize. Widen time_range or drop project_id/tags.';
    const how = r.method === 'sampling' ? `by the client's model ${r.model ?? ''}` : 'extractive (salient sentences, no model)';
    const stored = r.stored_id ? `\nStored as ${citation(r.stored_id)} \`${r.stored_id}\` in transaction ${r.tx_id} (undo reverts it).` : '';
    return `Summary of ${r.sources_read} memories, ${how}; sources: ${r.source_memory_ids.map(citation).join(', ')}${r.job_id ? ` (job ${r.job_id})` : ''}.\n\n${r.summary}${stored}`;
  },
});
