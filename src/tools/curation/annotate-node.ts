import * as z from 'zod';
import { DOMAINS } from '../../services/curation.js';
import { defineTool, IDEMPOTENT_WRITE } from '../kit/define.js';
import { nodeIdField, rationaleField, tagsField, unitInterval } from '../kit/fields.js';
import { cited, citedIdSchema, reversalHashField } from './cited.js';

const input = z.strictObject({
  node_id: nodeIdField,
  annotations: z
    .strictObject({
      tags: tagsField.optional().describe('Tags to add (kept tags stay).'),
      domain: z.enum(DOMAINS).optional(),
      confidence: unitInterval.optional().describe('How sure the memory is, 0–1.'),
      notes: z.string().max(2_000, 'must be at most 2,000 characters').optional(),
      related_concepts: z.array(z.string().trim().min(1).max(256)).max(64).optional(),
    })
    .describe('At least one of tags, domain, confidence, notes, related_concepts.'),
  rationale: rationaleField.min(10, 'must be at least 10 characters').optional(),
});

const output = z.object({
  kind: z.literal('annotated:v1'),
  node: citedIdSchema,
  tx_id: z.number().int(),
  reversal_hash: reversalHashField,
  tags: z.array(z.string()),
  confidence: z.number(),
  annotations: z.object({ domain: z.string().nullable(), notes: z.string().nullable(), related_concepts: z.array(z.string()) }),
  version: z.number().int(),
});

export const annotateNodeTool = defineTool({
  name: 'annotate_node',
  title: 'Annotate a node',
  description: `Attach metadata to a memory without touching its content or embeddings: add tags, set a domain (${DOMAINS.join('|')}), a confidence, notes (≤ 2,000 characters) and related concepts. One transaction; \`undo\` or restore_from_hash reverts it.
When to use: you learned something about a memory (its field, how reliable it is, what it relates to) and want later searches and filters to know it.
Example: {"node_id": "[node_0190f3a2c4e5b6d7e8f9a0b1c2d3e4f5]", "annotations": {"tags": ["postgres", "backup"]}}
Advanced: {"node_id": "01J9Z3K6Q4M8W2X5Y7R1T0V3AB", "annotations": {"domain": "Code", "confidence": 0.6, "notes": "From a draft runbook; check with ops.", "related_concepts": ["WAL archiving"]}, "rationale": "runbook is still a draft"}`,
  annotations: IDEMPOTENT_WRITE,
  input,
  output,
  async handler(args, ctx) {
    const r = await ctx.services.curation.annotate(args.node_id, args.annotations, { actor: ctx.actor, rationale: args.rationale ?? null });
    const a = (r.result.metadata.annotations ?? {}) as { domain?: string; notes?: string; related_concepts?: string[] };
    return {
      kind: 'annotated:v1' as const,
      node: cited(r.result.id),
      tx_id: r.txId,
      reversal_hash: r.reversalHash,
      tags: r.result.tags,
      confidence: r.result.confidence,
      annotations: { domain: a.domain ?? null, notes: a.notes ?? null, related_concepts: a.related_concepts ?? [] },
      version: r.result.version,
    };
  },
  render(r) {
    const parts = [`Annotated ${r.node.citation} in transaction ${r.tx_id} (version ${r.version}).`, `tags: ${r.tags.join(', ') || '(none)'} · confidence ${r.confidence}`];
    if (r.annotations.domain) parts.push(`domain: ${r.annotations.domain}`);
    if (r.annotations.related_concepts.length) parts.push(`related: ${r.annotations.related_concepts.join(', ')}`);
    if (r.reversal_hash) parts.push(`reversal_hash: \`${r.reversal_hash}\``);
    return parts.join('\n');
  },
});
