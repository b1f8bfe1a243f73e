import * as z from 'zod';
import { phaseRecord } from '../../services/dreams/job.js';
import { DEFAULT_BUDGET } from '../../services/dreams/dreams.js';
import type { ClusterPlan } from '../../services/dreams/consolidate.js';
import type { ToolContext } from '../kit/context.js';
import { citation } from '../../ids.js';

export const budgetField = z
  .strictObject({
    max_operations: z.number().int().min(1).max(1_000_000).default(DEFAULT_BUDGET.max_operations).describe('Most lookups and writes per phase.'),
    max_ms: z.number().int().min(100).max(3_600_000).default(DEFAULT_BUDGET.max_ms).describe('Most milliseconds per phase.'),
  })
  .describe(
    `What bounds each phase: operations (memories replayed, neighbour lookups, graph walk levels, edges read) and wall time; a phase stops planning there and commits what it found (default ${DEFAULT_BUDGET.max_operations} operations, ${DEFAULT_BUDGET.max_ms / 1_000} s).`,
  );

export const minSimilarityField = z.number().min(0.5).max(1).default(0.9).describe('E1 cosine at or above which two memories are near-duplicates, 0.5..1.');

export const runSchema = z.object({
  status: z.enum(['completed', 'aborted', 'accepted']).describe('accepted: still running in the background (follow it with get_dream_status or by job_id).'),
  dream_id: z.string(),
  job_id: z.string(),
  project_id: z.string(),
  phase: z.string(),
  phases: z.array(phaseRecord).describe('Committed phases with their counts and transaction ids (undo {tx_id} reverts one).'),
  aborted_in: z.string().nullable(),
  sampled_summaries: z.number().int().describe("Cluster summaries the client's model wrote through MCP sampling (the rest are extractive)."),
});

const SYSTEM = 'You consolidate near-duplicate memory notes. Answer with one note only: every distinct fact once, no preamble, keep the [node_…] tags of the facts.';
const MAX_SAMPLED = 10;

/** Summaries from the client's model for the clusters a run will consolidate (none without sampling). */
export async function sampledSummaries(ctx: ToolContext, clusters: readonly ClusterPlan[]): Promise<Record<string, { text: string; model: string }>> {
  const out: Record<string, { text: string; model: string }> = {};
  if (!ctx.sampling) return out;
  for (const c of clusters.slice(0, MAX_SAMPLED)) {
    const prompt = `These memories say nearly the same thing. Write one note that keeps every fact once:\n\n${c.members.map((m) => `${citation(m.id)}: ${m.content.trim()}`).join('\n\n')}`;
    try {
      const r = await ctx.sampling.complete({ prompt, system: SYSTEM, maxTokens: 1_024 });
      if (r.text.trim()) out[c.key] = { text: r.text.trim(), model: r.model };
    } catch {
      // A client that declared sampling but refused: this cluster's summary is extractive.
    }
  }
  return out;
}

type Run = z.output<typeof runSchema>;

export function renderRun(what: string, r: Run): string {
  if (r.status === 'accepted') return `The ${what} continues in the background as ${r.dream_id} (job ${r.job_id}); get_dream_status follows it, abort_dream stops it.`;
  const lines = r.phases.map(
    (p) =>
      `- ${p.phase}: ${Object.entries(p.counts)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}${p.tx_id ? ` — transaction ${p.tx_id}` : ' — no change'}${p.stopped_by_budget ? ' (budget reached)' : ''}`,
  );
  const head = r.status === 'aborted' ? `The ${what} ${r.dream_id} was aborted in ${r.aborted_in}; that phase was rolled back.` : `The ${what} ${r.dream_id} completed.`;
  return [head, ...lines, r.sampled_summaries ? `${r.sampled_summaries} summaries written by the client's model.` : ''].filter(Boolean).join('\n');
}
