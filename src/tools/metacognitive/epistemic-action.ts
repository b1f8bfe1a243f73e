import * as z from 'zod';
import { excerpt } from '../../services/metacognition/text.js';
import type { EpistemicDecision } from '../../services/metacognition/epistemic.js';
import { sessionKey } from '../../services/navigation/navigation.js';
import type { ToolContext } from '../kit/context.js';
import { cited, citedIdSchema } from '../curation/cited.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { inlineText } from '../kit/markdown.js';

const input = z.strictObject({
  session_id: z.string().trim().min(1).max(256).optional().describe('Whose recent memories to judge (default: this session; get_recent_context records them).'),
  force: z.boolean().default(false).describe('Ask even when coherence is not low.'),
});

const output = z.object({
  kind: z.literal('epistemic_action:v1'),
  action_type: z.enum(['ask_user', 'none']),
  question: z.string().nullable(),
  expected_entropy_reduction: z
    .number()
    .describe("[0, 1]: the share of the judged memories' incoherence (Σ 1 − ΔC) held by the focal memories; with no focus, the mean incoherence of the store (1 when empty)."),
  focal_nodes: z.array(citedIdSchema.extend({ coherence: z.number(), weakest_space: z.string(), weakest_coherence: z.number(), edges: z.number().int() })),
  coherence_before: z.number().nullable().describe('Weighted mean ΔC of the judged memories; null before their fingerprints exist.'),
  suggested_follow_up: z.string().nullable(),
  reason: z.string(),
  judged: z.object({ source: z.enum(['session', 'latest']), memories: z.number().int() }),
  method: z.enum(['sampling', 'template', 'none']).describe("Who worded the question: the client's model (MCP sampling) or the deterministic template."),
  model: z.string().nullable(),
});

const SYSTEM = 'You help an agent ask its user one clarifying question. Answer with the question only, one or two sentences, no preamble.';

/** The client's model words the question when it offers sampling; null keeps the template. */
async function sampledQuestion(ctx: ToolContext, d: EpistemicDecision): Promise<{ text: string; model: string } | null> {
  if (!ctx.sampling || !d.question) return null;
  const focus = d.focal.length
    ? `The memories that fit least with the rest (lowest coherence):\n${d.focal.map((f) => `- ${excerpt(f.node.content, 200)} (coherence ${f.coherence.toFixed(2)}, weakest in ${f.weakest_space})`).join('\n')}`
    : "The memory store is nearly empty: ask about the user's domain and goals.";
  try {
    const r = await ctx.sampling.complete({ system: SYSTEM, prompt: `${focus}\n\nDraft question: ${d.question}\n\nWrite the one question to ask the user.`, maxTokens: 200 });
    return r.text.trim() ? { text: r.text.trim(), model: r.model } : null;
  } catch {
    // A client that declared sampling but refused or failed: the template answers.
    return null;
  }
}

export const epistemicActionTool = defineTool({
  name: 'epistemic_action',
  title: 'Clarifying question when coherence is low',
  description: `When the memories this session touched (else the latest ones) cohere poorly — weighted UTL coherence ΔC below 0.4 over at least 3 of them — or with force, a clarifying question for the user about the focal memories with the lowest coherence, with expected_entropy_reduction, focal_nodes, coherence_before and suggested_follow_up. With fewer than 10 memories in the store: a generic question about the user's domain and goals, with no focal nodes. The client's model words the question through MCP sampling when offered, a template otherwise; \`method\` says which.
When to use: search results contradict each other or do not fit together, or the store is new and you know nothing about the user.
Example: {}
Advanced: {"force": true, "session_id": "http:7f3c…"}`,
  annotations: READ_ONLY,
  input,
  output,
  async handler(args, ctx) {
    const d = await ctx.services.metacognition.epistemic({ sessionId: args.session_id ?? sessionKey(ctx), force: args.force });
    const sampled = await sampledQuestion(ctx, d);
    return {
      kind: 'epistemic_action:v1' as const,
      action_type: d.triggered ? ('ask_user' as const) : ('none' as const),
      question: sampled?.text ?? d.question,
      expected_entropy_reduction: d.expected_entropy_reduction,
      focal_nodes: d.focal.map((f) => ({
        ...cited(f.node.id),
        coherence: Math.round(f.coherence * 1e4) / 1e4,
        weakest_space: f.weakest_space,
        weakest_coherence: f.weakest_coherence,
        edges: f.edges,
      })),
      coherence_before: d.coherence_before,
      suggested_follow_up: d.suggested_follow_up,
      reason: d.reason,
      judged: { source: d.source, memories: d.judged },
      method: sampled ? ('sampling' as const) : d.question ? ('template' as const) : ('none' as const),
      model: sampled?.model ?? null,
    };
  },
  render(r) {
    if (r.action_type === 'none') return `No question needed: ${inlineText(r.reason)}.`;
    const focal = r.focal_nodes.map((f) => `${f.citation} (ΔC ${f.coherence}, weakest ${f.weakest_space})`).join(', ');
    return [
      `Ask the user (${r.method === 'sampling' ? `worded by ${r.model ?? 'the client model'}` : 'template'}): ${inlineText(r.question ?? '', 600)}`,
      `Why: ${inlineText(r.reason)}; coherence before ${r.coherence_before ?? 'n/a'}, expected entropy reduction ${r.expected_entropy_reduction}.`,
      focal ? `Focal: ${focal}` : 'Focal: none (too few memories to focus on).',
      r.suggested_follow_up ? `Then: ${r.suggested_follow_up}` : '',
    ]
      .filter(Boolean)
      .join('\n');
  },
});
