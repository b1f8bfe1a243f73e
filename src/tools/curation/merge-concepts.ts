import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { AppError } from '../../errors.js';
import { MERGE_STRATEGIES, mergeJob, mergeResult, PRIORS_MIN_COSINE, type MergeRequest } from '../../services/merge.js';
import type { ToolContext } from '../kit/context.js';
import { defineTool, DESTRUCTIVE } from '../kit/define.js';
import { nodeIdField, rationale } from '../kit/fields.js';
import { cited, citedIdSchema } from './cited.js';

const input = z.strictObject({
  source_node_ids: z.array(nodeIdField).min(2, 'must list at least 2 nodes').max(200, 'must list at most 200 nodes').describe('Nodes to merge (ids, citation tags or UUIDs).'),
  target_name: z.string().trim().min(1).max(256).describe('Name (topic) of the merged node.'),
  merge_strategy: z.enum(MERGE_STRATEGIES).default('summarize'),
  rationale: rationale('Why these nodes should be merged, 10–1,000 characters.'),
  force_merge: z.boolean().default(false).describe(`Merge even when the sources' priors disagree (E1 cosine < ${PRIORS_MIN_COSINE}).`),
});

const output = mergeResult.omit({ merged_id: true, source_ids: true }).extend({
  kind: z.literal('merged:v1'),
  merged: citedIdSchema,
  sources: z.array(citedIdSchema),
  summary_model: z.string().nullable().describe('The client model that wrote a sampled summary.'),
  job_id: z.string().nullable().describe('Set when the merge ran as a job (many or long sources).'),
  searchable: z.boolean().describe("The merged node's vectors are indexed in every space: all search signals find it."),
  keyword_searchable: z.boolean().describe('Keyword search finds the merged node now (its other vectors follow through the embed job).'),
});

const SYSTEM = 'You merge duplicate memory notes. Answer with the merged note only: every distinct fact once, no preamble.';

/** A summary from the client's model when it offers sampling; null falls back to sentence selection. */
async function sampledSummary(ctx: ToolContext, texts: readonly string[], name: string): Promise<{ text: string; model: string } | null> {
  if (!ctx.sampling) return null;
  const prompt = `Merge these notes about "${name}" into one note:\n\n${texts.map((t, i) => `Note ${i + 1}:\n${t}`).join('\n\n')}`;
  try {
    const r = await ctx.sampling.complete({ prompt, system: SYSTEM, maxTokens: 1_024 });
    return r.text.trim() ? r : null;
  } catch {
    // A client that declared sampling but refused or failed: the extractive summary answers.
    return null;
  }
}

export const mergeConceptsTool = defineTool({
  name: 'merge_concepts',
  title: 'Merge concepts',
  description: `Merge duplicate or overlapping memories into one node named target_name, in one transaction: the merged node records its sources (metadata.merged_from), their edges are re-pointed to it, and the sources are tombstoned (metadata.merged_into). Strategies: summarize (default; the client's model writes it through MCP sampling when the client offers it, otherwise an extractive summary picks representative sentences; \`summarized_by\` says which), keep_highest (the most important source's content), concatenate. Sources whose E1 similarity is below ${PRIORS_MIN_COSINE} answer PRIORS_INCOMPATIBLE unless force_merge, which then links the merged node to each source with a Relational edge. Many or long sources run as a job with progress. Returns a reversal_hash for restore_from_hash.
When to use: two or more memories say the same thing (similarity > 0.9) or belong together as one concept.
Example: {"source_node_ids": ["01J9Z3K6Q4M8W2X5Y7R1T0V3AB", "01J9Z3K7B2C4D6E8F0G1H3J5KM"], "target_name": "Backup schedule", "rationale": "both describe the nightly backup"}
Advanced: {"source_node_ids": ["[node_0190f3a2c4e5b6d7e8f9a0b1c2d3e4f5]", "0190f3a2-c4e5-b6d7-e8f9-a0b1c2d3e4f6"], "target_name": "Retry policy", "merge_strategy": "keep_highest", "force_merge": true, "rationale": "same policy, written for two services"}`,
  annotations: DESTRUCTIVE,
  input,
  output,
  async handler(args, ctx) {
    const { sources, large } = await ctx.services.merge.prepare(args.source_node_ids);
    let sampled: { text: string; model: string } | null = null;
    if (args.merge_strategy === 'summarize') sampled = await sampledSummary(ctx, [...new Set(sources.map((s) => s.content.trim()))], args.target_name);
    const req: MergeRequest = {
      source_ids: sources.map((s) => s.id),
      target_name: args.target_name,
      strategy: args.merge_strategy,
      rationale: args.rationale,
      force_merge: args.force_merge,
      sampled_summary: sampled?.text ?? null,
      actor: ctx.actor,
    };
    let jobId: string | null = null;
    let result;
    let searchable = { searchable: true, keyword_searchable: true };
    if (large) {
      // The caller follows the phases as progress notifications; the answer is the merge itself.
      jobId = `merge-${randomUUID()}`;
      const ran = await ctx.jobs.run(mergeJob, req, { jobId, waitMs: Infinity });
      if ('status' in ran && ran.status === 'accepted') throw new AppError('INTERNAL', `merge job ${jobId} did not finish`);
      result = ran as z.output<typeof mergeResult>;
      await ctx.services.merge.settle(result.merged_id);
    } else {
      const { searchable: all, keyword_searchable: keyword, ...merged } = await ctx.services.merge.merge(req, sources);
      result = merged;
      searchable = { searchable: all, keyword_searchable: keyword };
    }
    const { merged_id, source_ids, ...rest } = result;
    return {
      kind: 'merged:v1' as const,
      ...rest,
      merged: cited(merged_id),
      sources: source_ids.map(cited),
      summary_model: rest.summarized_by === 'sampling' ? (sampled?.model ?? null) : null,
      job_id: jobId,
      ...searchable,
    };
  },
  render(r) {
    const how =
      r.summarized_by === 'sampling' ? ` (summary by the client's model ${r.summary_model ?? ''})` : r.summarized_by === 'extractive' ? ' (extractive summary, no model)' : '';
    return [
      `Merged ${r.sources.map((s) => s.citation).join(', ')} into ${r.merged.citation} with ${r.strategy}${how} in transaction ${r.tx_id}.`,
      `Edges re-pointed: ${r.edges_repointed}; dropped (between sources): ${r.edges_dropped}${r.forced ? `; priors incompatible (min cosine ${r.priors_min_cosine?.toFixed(3)}), forced: ${r.relational_edges} Relational edge(s) to the sources` : ''}.`,
      `reversal_hash: \`${r.reversal_hash}\``,
    ].join('\n');
  },
});
