import * as z from 'zod';
import { CHECK_TYPES } from '../../services/metacognition/critique.js';
import { cited, citedIdSchema } from '../curation/cited.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { projectIdField } from '../kit/fields.js';
import { inlineText } from '../kit/markdown.js';

const input = z.strictObject({
  context_window: z.number().int().min(1, 'must be at least 1').max(50, 'must be at most 50').default(10).describe('How many of the most recent memories to critique (1–50).'),
  check_types: z.array(z.enum(CHECK_TYPES)).min(1).max(4).default(['conflicts', 'duplicates']).describe('conflicts, duplicates, outdated, low_confidence.'),
  project_id: projectIdField.optional().describe("Critique this project's recent memories only."),
});

const output = z.object({
  kind: z.literal('critique:v1'),
  checked: z.array(z.enum(CHECK_TYPES)),
  window: z.array(citedIdSchema).describe('The memories critiqued, newest first.'),
  pairs_compared: z.number().int().describe('Pairs compared for conflicts and near-duplicates (the window among itself and against older memories of the same topic).'),
  findings: z.array(
    z.object({
      check: z.enum(CHECK_TYPES),
      kind: z
        .string()
        .describe(
          'conflicts: negation, numbers, dates (joined by +) or superseded; duplicates: exact or near; outdated: superseded or expired; low_confidence: stored_confidence.',
        ),
      nodes: z.array(citedIdSchema),
      detail: z.string(),
      score: z.number().describe('Strength of the evidence: word overlap, E1 cosine, or 1 − confidence.'),
    }),
  ),
  counts: z.record(z.string(), z.number().int()),
});

export const critiqueContextTool = defineTool({
  name: 'critique_context',
  title: 'Critique recent memories',
  description: `Checks the N most recent memories (context_window 1–50) for conflicts (two memories about the same topic, entity or meaning that disagree: one negates the other, or they give different numbers or dates; superseded pairs), duplicates (same content hash, or E1 cosine ≥ 0.9), outdated facts (validity ended, or superseded) and low confidence (stored confidence < 0.5). Conflicts and duplicates also compare against older memories of the same topic. Every finding names its node ids.
When to use: before relying on what was just stored or recalled, or after a burst of writes.
Example: {}
Advanced: {"context_window": 50, "check_types": ["conflicts", "duplicates", "outdated", "low_confidence"], "project_id": "payments"}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    const checks = [...new Set(args.check_types)];
    const r = await ctx.services.metacognition.critique({ window: args.context_window, checks, projectId: args.project_id ?? null });
    const counts: Record<string, number> = Object.fromEntries(checks.map((c) => [c, 0]));
    for (const f of r.findings) counts[f.check] = (counts[f.check] ?? 0) + 1;
    return {
      kind: 'critique:v1' as const,
      checked: checks,
      window: r.window.map((n) => cited(n.id)),
      pairs_compared: r.compared,
      findings: r.findings.map((f) => ({ check: f.check, kind: f.kind, nodes: f.node_ids.map(cited), detail: f.detail, score: f.score })),
      counts,
    };
  },
  render(r) {
    const head = `Critiqued ${r.window.length} recent memories (${r.checked.join(', ')}; ${r.pairs_compared} pairs compared): ${r.findings.length} finding(s).`;
    const lines = r.findings.map((f) => `- **${f.check}** (${f.kind}) ${f.nodes.map((n) => n.citation).join(' ↔ ')}: ${inlineText(f.detail, 300)}`);
    return [head, ...lines].join('\n');
  },
});
